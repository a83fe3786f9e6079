import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Fetches provider metadata and checks that it really describes the issuer asked for.
public enum ProviderDiscovery {
    /// Which well-known document to read.
    public enum Document: Sendable {
        /// OpenID Connect Discovery 1.0: `{issuer}/.well-known/openid-configuration`.
        case openIDConfiguration
        /// RFC 8414: `{scheme}://{host}/.well-known/oauth-authorization-server{issuer path}`.
        case oauthAuthorizationServer
        /// OpenID first, RFC 8414 when the first answers 404 (what RFC 8414 §5 suggests).
        case automatic
    }

    /// Downloads the metadata for `issuer`.
    ///
    /// Throws `DiscoveryError.issuerMismatch` unless the document's `issuer` is exactly `issuer`
    /// (OIDC Discovery §4.3, RFC 8414 §3.3): a mismatch means the document may be an attacker's
    /// mix-up and every endpoint in it is untrusted.
    public static func discover(
        issuer: URL, document: Document = .automatic, transport: any HTTPTransport = URLSessionTransport()
    ) async throws -> ProviderMetadata {
        switch document {
        case .openIDConfiguration:
            return try await fetch(openIDConfigurationURL(for: issuer), issuer: issuer, transport: transport)
        case .oauthAuthorizationServer:
            return try await fetch(oauthAuthorizationServerURL(for: issuer), issuer: issuer, transport: transport)
        case .automatic:
            do {
                return try await fetch(openIDConfigurationURL(for: issuer), issuer: issuer, transport: transport)
            } catch DiscoveryError.notFound {
                return try await fetch(oauthAuthorizationServerURL(for: issuer), issuer: issuer, transport: transport)
            }
        }
    }

    /// `{issuer}/.well-known/openid-configuration` (appended after the issuer's path).
    public static func openIDConfigurationURL(for issuer: URL) -> URL {
        URL(string: issuerString(issuer) + "/.well-known/openid-configuration")!
    }

    /// RFC 8414 §3.1: the well-known segment goes between the host and the issuer's path.
    public static func oauthAuthorizationServerURL(for issuer: URL) -> URL {
        var components = URLComponents(url: issuer, resolvingAgainstBaseURL: false)!
        var path = components.path
        if path.hasSuffix("/") { path.removeLast() }
        components.path = "/.well-known/oauth-authorization-server" + path
        components.query = nil
        components.fragment = nil
        return components.url!
    }

    /// The issuer as a string without a trailing slash, the form providers publish.
    static func issuerString(_ issuer: URL) -> String {
        let string = issuer.absoluteString
        return string.hasSuffix("/") ? String(string.dropLast()) : string
    }

    private static func fetch(_ url: URL, issuer: URL, transport: any HTTPTransport) async throws -> ProviderMetadata {
        var request = URLRequest(url: url)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let (data, response) = try await transport.send(request)
        if response.statusCode == 404 { throw DiscoveryError.notFound(url) }
        guard response.isSuccess else {
            throw HTTPTransportError.unexpectedStatus(response.statusCode, body: data.excerpt)
        }
        let metadata: ProviderMetadata
        do {
            metadata = try JSONDecoder().decode(ProviderMetadata.self, from: data)
        } catch {
            throw DiscoveryError.invalidDocument(String(describing: error))
        }
        // Exact comparison, tolerating only the trailing slash a caller may have typed.
        let expected = issuerString(issuer)
        guard let published = metadata.issuer, published == expected || published == expected + "/" else {
            throw DiscoveryError.issuerMismatch(expected: expected, actual: metadata.issuer)
        }
        return metadata
    }
}

/// Why discovery failed.
public enum DiscoveryError: Error, Equatable, Sendable {
    /// The well-known document does not exist at this URL.
    case notFound(URL)
    /// The document is not valid metadata (missing `authorization_endpoint`, not JSON, …).
    case invalidDocument(String)
    /// The document's `issuer` is not the issuer requested.
    case issuerMismatch(expected: String, actual: String?)
}
