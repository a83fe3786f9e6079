import Foundation
import GatehouseCrypto
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One of Apple's server-to-server notification events.
public struct AppleNotificationEvent: Sendable, Equatable {
    /// The `type` of the event.
    public enum Kind: String, Sendable, CaseIterable {
        case emailDisabled = "email-disabled"
        case emailEnabled = "email-enabled"
        case consentRevoked = "consent-revoked"
        case accountDelete = "account-delete"
    }

    public var kind: Kind
    /// The user's `sub` (``AppleSimulator/subject(forEmail:)``).
    public var subject: String
    /// For the email events: the (relay) address concerned.
    public var email: String?
    /// For the email events: whether ``email`` is a private relay address (sent as a string).
    public var isPrivateEmail: Bool?
    /// When it happened; sent as `event_time` in milliseconds since 1970, as Apple's payloads are.
    public var eventTime: Date

    public init(kind: Kind, subject: String, email: String? = nil, isPrivateEmail: Bool? = nil, eventTime: Date = Date()) {
        self.kind = kind
        self.subject = subject
        self.email = email
        self.isPrivateEmail = isPrivateEmail
        self.eventTime = eventTime
    }
}

/// A signed notification, ready to POST to an app's notification endpoint.
public struct AppleNotification: Sendable {
    /// The JWT: RS256 under the Apple JWKS, `iss` Apple, `aud` the client id, `events` a JSON *string*.
    public let jwt: String

    /// The request body Apple sends: `{"payload":"<JWT>"}`.
    public var body: [UInt8] { JSONValue.object(["payload": .string(jwt)]).jsonBytes }

    /// POSTs ``body`` as `application/json` to `url` and returns the HTTP status (for apps running
    /// in another process; in-process tests can post ``body`` through their own client instead).
    public func send(to url: URL) async throws -> Int {
        var request = URLRequest(url: url, timeoutInterval: 5)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(body)
        // Ephemeral: the shared session would write a cookie store to disk.
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let (_, response) = try await session.data(for: request)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }
}

extension AppleSimulator {
    /// Builds the notification Apple would send to `clientID`'s endpoint about `event`.
    public func notification(_ event: AppleNotificationEvent, clientID: String) throws -> AppleNotification {
        var events: [String: JSONValue] = [
            "type": .string(event.kind.rawValue), "sub": .string(event.subject),
            "event_time": .integer(Int64((event.eventTime.timeIntervalSince1970 * 1000).rounded(.down))),
        ]
        if let email = event.email { events["email"] = .string(email) }
        if let isPrivate = event.isPrivateEmail { events["is_private_email"] = .string(isPrivate ? "true" : "false") }
        let now = clock()
        let claims: [String: JSONValue] = [
            "iss": .string(Self.issuer), "aud": .string(clientID), "iat": SimulatorHTTP.numericDate(now),
            "jti": .string(SecureRandom.token(byteCount: 16)),
            // Apple nests the event as a JSON *string*, not an object.
            "events": .string(String(decoding: JSONValue.object(events).jsonBytes, as: UTF8.self)),
        ]
        return AppleNotification(jwt: try keys.sign(claims, type: nil))
    }
}
