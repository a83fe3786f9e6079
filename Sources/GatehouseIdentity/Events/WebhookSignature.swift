import Foundation
import GatehouseCrypto

/// How webhooks are signed (like Stripe's and Standard Webhooks'): HMAC-SHA256 under the endpoint's
/// secret over `timestamp + "." + body`, sent as `Gatehouse-Signature: v1=<lowercase hex>` beside
/// `Gatehouse-Timestamp` (Unix seconds) and `Gatehouse-Event-Id` (the same at every retry: receivers
/// deduplicate by it). A receiver rejects a timestamp outside ``replayWindow`` of its own clock.
public enum WebhookSignature {
    public static let eventIdHeader = "Gatehouse-Event-Id"
    public static let timestampHeader = "Gatehouse-Timestamp"
    public static let signatureHeader = "Gatehouse-Signature"
    /// How far a receiver should accept a timestamp from its own clock (either way): five minutes.
    public static let replayWindow: TimeInterval = 300

    /// The header value for `body` sent at `timestamp`.
    public static func sign(body: [UInt8], timestamp: Int64, secret: String) -> String {
        let message = Array("\(timestamp).".utf8) + body
        let mac = HMACSHA256.authenticationCode(for: message, key: Array(secret.utf8))
        return "v1=" + mac.map { String(format: "%02x", $0) }.joined()
    }

    /// What a receiver checks: a `v1=` signature that matches (constant-time) and a timestamp inside the window.
    public static func verify(body: [UInt8], timestamp: String, signature: String, secret: String, now: Date,
                              window: TimeInterval = replayWindow) -> Bool {
        guard timestamp.utf8.count <= 12, let seconds = Int64(timestamp),
              abs(now.timeIntervalSince1970 - Double(seconds)) <= window else { return false }
        let expected = sign(body: body, timestamp: seconds, secret: secret)
        // A header may carry several signatures (secret rotation): any one matching is enough.
        return signature.split(separator: ",").contains { ConstantTime.equals(String($0).trimmingCharacters(in: .whitespaces), expected) }
    }
}
