import Foundation
import GatehouseCrypto

/// One of Apple's server-to-server notifications, verified.
public struct AppleServerNotification: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case emailDisabled = "email-disabled"
        case emailEnabled = "email-enabled"
        case consentRevoked = "consent-revoked"
        case accountDelete = "account-delete"
    }

    public var kind: Kind
    /// The user's Apple `sub`.
    public var subject: String
    public var email: String?
    public var isPrivateEmail: Bool?
    public var eventTime: Date?
    /// The notification's `jti`, when Apple sent one.
    public var jwtID: String?
    /// When the notification was signed (`iat`).
    public var issuedAt: Date?

    /// What identifies this event across retries and replays: (subject, type, event time) — the same for a
    /// replayed JWT and for a retry Apple signs anew — else the `jti`, else (subject, type, signing time).
    public var eventID: String {
        func millis(_ date: Date) -> String { String(Int64((date.timeIntervalSince1970 * 1000).rounded(.down))) }
        if let eventTime { return "evt:" + SHA256.hex("\(subject)|\(kind.rawValue)|\(millis(eventTime))") }
        if let jwtID, !jwtID.isEmpty, jwtID.utf8.count <= 200 { return "jti:" + jwtID }
        return "iat:" + SHA256.hex("\(subject)|\(kind.rawValue)|\(issuedAt.map(millis) ?? "-")")
    }

    /// Orders events of one subject: Apple's `event_time`, else the signing time.
    public var orderingTime: Date { eventTime ?? issuedAt ?? Date(timeIntervalSince1970: 0) }
}

extension AppleProvider {
    /// Verifies a notification body (`{"payload":"<JWT>"}`): RS256 under Apple's JWKS, `iss` Apple,
    /// `aud` one of our client ids, then reads the `events` claim (a JSON *string*; an object is accepted too).
    public func verifyNotification(body: [UInt8]) async throws -> AppleServerNotification {
        guard body.count <= 16_384, case .object(let root)? = JSONValue(parsing: body), let jwt = root["payload"]?.stringValue else {
            throw ProviderError.invalidCallback("the body is not {\"payload\": \"<JWT>\"}")
        }
        let verifier = JWTVerifier(allowedAlgorithms: [.rs256], rules: ClaimRules(
            issuers: [AppleSettings.issuer], audiences: Set([settings.clientID] + settings.extraAudiences),
            requireExpiration: false, requiredClaims: ["iat", "events"]))
        let claims: JWTClaims
        do { claims = try await verifier.verify(jwt, keys: validator.jwks, now: clock()).claims } catch {
            throw IDTokenValidator.map(error)
        }
        // Old notifications are not replayed at us: Apple sends them at once.
        if let iat = claims.issuedAt, clock().timeIntervalSince(iat) > 86_400 { throw ProviderError.invalidToken(.stale) }
        let events: [String: JSONValue]
        switch claims.all["events"] {
        case .string(let text)?:
            guard case .object(let object)? = JSONValue(parsing: Array(text.utf8)) else { throw ProviderError.invalidToken(.events) }
            events = object
        case .object(let object)?: events = object
        default: throw ProviderError.invalidToken(.events)
        }
        guard let type = events["type"]?.stringValue, let kind = AppleServerNotification.Kind(rawValue: type),
              let subject = events["sub"]?.stringValue, !subject.isEmpty else { throw ProviderError.invalidToken(.events) }
        return AppleServerNotification(kind: kind, subject: subject, email: events["email"]?.stringValue,
                                       isPrivateEmail: events["is_private_email"].flatMap(BooleanClaim.init)?.value,
                                       eventTime: events["event_time"]?.numberValue.map { Date(timeIntervalSince1970: $0 / 1000) },
                                       jwtID: claims.all["jti"]?.stringValue, issuedAt: claims.issuedAt)
    }
}
