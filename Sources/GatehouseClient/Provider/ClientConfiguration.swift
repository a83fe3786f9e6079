import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Who the app is to the provider.
public struct ClientConfiguration: Sendable, Equatable {
    /// `client_id`.
    public var clientID: String
    /// Where the provider sends the user back: a private-use scheme (`com.example.app:/cb`),
    /// a claimed https URL, or a loopback URL (RFC 8252).
    public var redirectURI: URL
    /// How the client proves itself at the token endpoint.
    public var authentication: ClientAuthentication

    public init(clientID: String, redirectURI: URL, authentication: ClientAuthentication = .none) {
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.authentication = authentication
    }
}

/// Token-endpoint client authentication (RFC 6749 §2.3, OIDC Core §9).
public enum ClientAuthentication: Sendable, Equatable {
    /// Public client (every mobile app): sends `client_id` only; PKCE protects the code.
    case none
    /// HTTP Basic with the form-encoded id and secret (RFC 6749 §2.3.1).
    case clientSecretBasic(String)
    /// `client_id` and `client_secret` in the form body.
    case clientSecretPost(String)

    /// Adds the credentials to a token/revocation request's form pairs and headers.
    func apply(clientID: String, to pairs: inout [(String, String)], request: inout URLRequest) {
        switch self {
        case .none:
            pairs.append(("client_id", clientID))
        case .clientSecretPost(let secret):
            pairs.append(("client_id", clientID))
            pairs.append(("client_secret", secret))
        case .clientSecretBasic(let secret):
            // RFC 6749 §2.3.1: each part is form-urlencoded *before* base64, which many clients forget
            // and which breaks secrets containing ':' or '%'.
            let credentials = "\(FormBody.encode(clientID)):\(FormBody.encode(secret))"
            request.setValue("Basic " + Data(credentials.utf8).base64EncodedString(), forHTTPHeaderField: "Authorization")
        }
    }
}
