import Foundation
import GatehouseCrypto
import GatehouseStore

/// Registration settings kept in a client's `metadata` JSON object (beside the native-app keys), so
/// adding one needs no schema change.
public enum ClientMetadata {
    /// OpenID Connect Dynamic Client Registration §2 name of the ID-token signing preference.
    public static let idTokenSigningAlgorithmKey = "id_token_signed_response_alg"
    /// What a client may ask ID tokens to be signed with; RS256 is the default (OIDC Core §15.1).
    public static let idTokenSigningAlgorithms: [JWSAlgorithm] = [.rs256, .es256]

    /// Whether refresh responses of `openid` grants carry a new ID token (default true, as Keycloak, Auth0
    /// and Okta do, and as kubectl's OIDC login needs); false leaves it out, which OpenID Connect Core §12.2
    /// allows ("might not contain an id_token"): the client keeps the ID token of the sign-in. Not a
    /// registered OIDC name: Gatehouse's own, for clients whose ID tokens are RS256 (the signature is
    /// most of a refresh's CPU: docs/refresh-grant.md).
    public static let refreshIDTokenKey = "refresh_id_token"

    /// The metadata object, or an empty one when it is not a JSON object.
    public static func object(_ metadata: String) -> [String: Any] {
        guard let data = metadata.data(using: .utf8),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return [:] }
        return object
    }

    /// `metadata` with `key` set to `value` (nil removes it); keys stay sorted so equal settings compare equal.
    public static func setting(_ key: String, to value: Any?, in metadata: String) -> String {
        var object = object(metadata)
        object[key] = value
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return metadata }
        return String(decoding: data, as: UTF8.self)
    }

    /// Whether `key` occurs in `metadata` at all: the cheap test before parsing it, on every token request
    /// (Foundation's `String.contains` bridges through NSString on Linux: 1–2% of a refresh).
    static func mentions(_ metadata: String, _ key: String) -> Bool {
        let haystack = Array(metadata.utf8), needle = Array(key.utf8)
        guard !needle.isEmpty, haystack.count >= needle.count else { return needle.isEmpty }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if haystack[start..<(start + needle.count)].elementsEqual(needle) { return true }
        }
        return false
    }

    /// A problem with the signing preference in `metadata`, or nil when it is absent or supported.
    static func idTokenAlgorithmProblem(_ metadata: String) -> String? {
        if mentions(metadata, refreshIDTokenKey), let flag = object(metadata)[refreshIDTokenKey], !(flag is Bool) {
            return "refresh_id_token must be true or false"
        }
        guard let value = object(metadata)[idTokenSigningAlgorithmKey] else { return nil }
        guard let name = value as? String, let algorithm = JWSAlgorithm(rawValue: name),
              idTokenSigningAlgorithms.contains(algorithm) else {
            return "id_token_signed_response_alg must be RS256 or ES256"
        }
        return nil
    }
}

extension OAuthClient {
    /// The algorithm this client's ID tokens are signed with (`id_token_signed_response_alg`, RS256 by default).
    public var idTokenSigningAlgorithm: JWSAlgorithm {
        guard ClientMetadata.mentions(metadata, ClientMetadata.idTokenSigningAlgorithmKey),
              let name = ClientMetadata.object(metadata)[ClientMetadata.idTokenSigningAlgorithmKey] as? String,
              let algorithm = JWSAlgorithm(rawValue: name), ClientMetadata.idTokenSigningAlgorithms.contains(algorithm) else {
            return .rs256
        }
        return algorithm
    }

    /// Whether this client's refresh responses carry an ID token (`refresh_id_token`, true by default).
    public var refreshIssuesIDToken: Bool {
        guard ClientMetadata.mentions(metadata, ClientMetadata.refreshIDTokenKey),
              let flag = ClientMetadata.object(metadata)[ClientMetadata.refreshIDTokenKey] as? Bool else { return true }
        return flag
    }
}
