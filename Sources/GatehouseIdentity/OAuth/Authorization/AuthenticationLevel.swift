import Foundation
import GatehouseStore

/// The `acr` values Gatehouse issues and honours: what a sign-in proved, in two levels. A sign-in whose
/// methods (`amr`) include `mfa` — a password and an authenticator-app or recovery code, or a passkey
/// that verified the user — is ``multiFactor``; any other sign-in is ``singleFactor``.
public enum AuthenticationLevel: Int, Sendable, Comparable, CaseIterable {
    case singleFactor = 1
    case multiFactor = 2

    /// The `acr` claim's value.
    public var acr: String {
        switch self {
        case .singleFactor: "urn:gatehouse:acr:sfa"
        case .multiFactor: "urn:gatehouse:acr:mfa"
        }
    }

    /// The level of a sign-in with these RFC 8176 methods.
    public init(methods: [String]) { self = methods.contains("mfa") ? .multiFactor : .singleFactor }

    /// The level an `acr` value names; nil for a value Gatehouse does not define.
    public init?(acr: String) {
        guard let level = Self.allCases.first(where: { $0.acr == acr }) else { return nil }
        self = level
    }

    /// Discovery's `acr_values_supported`.
    public static var supported: [String] { allCases.map(\.acr) }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Client metadata key: every sign-in for this client must be multi-factor.
    public static let requireMFAKey = "require_mfa"

    /// The least level `request` accepts: the client's `require_mfa`, else the lowest known value of
    /// `acr_values` (and of an essential `acr` in `claims`): any value listed is acceptable and a stronger
    /// sign-in satisfies a weaker one. Values Gatehouse does not define ask for nothing (OIDC Core §3.1.2.1:
    /// `acr_values` is a voluntary claim).
    public static func required(_ request: AuthorizationRequest) -> AuthenticationLevel? {
        if request.client.requiresMFA { return .multiFactor }
        return request.acrValues.compactMap(AuthenticationLevel.init(acr:)).min()
    }
}

extension OAuthClient {
    /// Clients registered with `require_mfa`: every sign-in they get is multi-factor (step-up when it is not).
    public var requiresMFA: Bool {
        guard let data = metadata.data(using: .utf8),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return false }
        return object[AuthenticationLevel.requireMFAKey] as? Bool == true
    }
}
