import Foundation
import GatehouseCrypto
import GatehouseHTTP
import GatehouseIdentity
import GatehouseStore

/// Reading request bodies and writing resources for the admin API.
enum AdminJSON {
    /// The body as a JSON object whose keys are all in `allowed` (an unknown field is a 400, not ignored).
    static func object(_ request: Request, allowed: Set<String>) throws(AdminProblem) -> [String: Any] {
        guard request.mediaType == "application/json" else { throw .badRequest("Send Content-Type: application/json.") }
        guard let parsed = try? JSONSerialization.jsonObject(with: Data(request.body)), let object = parsed as? [String: Any] else {
            throw .badRequest("The body is not a JSON object.")
        }
        for key in object.keys.sorted() where !allowed.contains(key) { throw .badRequest("Unknown field \(key).") }
        return object
    }

    static func string(_ object: [String: Any], _ key: String, maxBytes: Int = 254) throws(AdminProblem) -> String? {
        guard let value = object[key] else { return nil }
        guard let text = value as? String, !isBool(value) else { throw .badRequest("\(key) must be a string.") }
        // Counted in Unicode scalars, as JSON Schema's maxLength counts.
        guard text.unicodeScalars.count <= maxBytes else { throw .badRequest("\(key) is longer than \(maxBytes) characters.") }
        return text
    }

    static func bool(_ object: [String: Any], _ key: String) throws(AdminProblem) -> Bool? {
        guard let value = object[key] else { return nil }
        guard isBool(value), let flag = value as? Bool else { throw .badRequest("\(key) must be true or false.") }
        return flag
    }

    static func isBool(_ value: Any) -> Bool {
        guard let number = value as? NSNumber else { return false }
        return String(cString: number.objCType) == "c" || type(of: number) == type(of: NSNumber(value: true))
    }

    static func response(_ object: Any, status: HTTPStatus = .ok) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return Response.json(bytes: Array(data), status: status)
    }

    /// RFC 3339 in UTC with milliseconds (`2026-12-01T22:30:01.123Z`, what `ISO8601DateFormatter` with fractional
    /// seconds writes), by hand: a formatter per value cost ~0.25 ms, nearly all of a 50-user page's CPU.
    /// Stored times are whole milliseconds, so rounding to the nearest one is exact.
    static func time(_ date: Date) -> String {
        let milliseconds = Int((date.timeIntervalSince1970 * 1000).rounded())
        let seconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
        return LogTimestamp.format(seconds: seconds, milliseconds: milliseconds - seconds * 1000)
    }

    static func session(_ session: Session) -> [String: Any] {
        ["id": session.idHash.hex, "created_at": time(session.createdAt), "last_seen_at": time(session.lastSeenAt),
         "expires_at": time(min(session.idleExpiresAt, session.absoluteExpiresAt)), "ip": session.ip.map { $0 as Any } ?? NSNull(),
         "user_agent": session.userAgent.map { $0 as Any } ?? NSNull(), "methods": session.authMethods]
    }

    static func identity(_ identity: ExternalIdentity) -> [String: Any] {
        ["provider": identity.provider, "subject": identity.subject, "email": identity.email.map { $0 as Any } ?? NSNull(),
         "email_verified": identity.emailVerified, "private_relay": identity.isPrivateRelay,
         "created_at": time(identity.createdAt), "last_used_at": time(identity.lastUsedAt)]
    }

    static func factors(_ status: SecondFactors.Status, credentials: [WebAuthnCredential]) -> [String: Any] {
        ["totp": status.totp, "webauthn_second_step": status.webAuthn, "recovery_codes_left": status.recoveryCodesLeft,
         "second_step_required": status.isEnabled,
         "webauthn": credentials.map { credential -> [String: Any] in
             ["id": Base64URL.encode(credential.credentialID), "name": credential.name, "synced": credential.backedUp,
              "created_at": time(credential.createdAt), "last_used_at": credential.lastUsedAt.map { time($0) as Any } ?? NSNull()]
         }]
    }

    static func audit(_ record: AuditRecord) -> [String: Any] {
        let details = (try? JSONSerialization.jsonObject(with: Data(record.event.details.utf8))) as? [String: Any] ?? [:]
        return ["sequence": record.sequence, "type": record.event.type, "occurred_at": time(record.event.occurredAt),
                "ip": record.event.ip.map { $0 as Any } ?? NSNull(), "user_agent": record.event.userAgent.map { $0 as Any } ?? NSNull(), "details": details]
    }
}
