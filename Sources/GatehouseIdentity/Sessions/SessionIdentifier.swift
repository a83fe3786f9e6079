import Foundation
import GatehouseCrypto
import GatehouseStore

/// The OpenID Connect `sid` of a Gatehouse session (Back-Channel Logout 1.0 §2.1): stable for the
/// session's life, the same in every process, and useless to anyone who reads it.
///
/// It is an HMAC under a server key of the session's user and sign-in time (`auth_time`, which the
/// authorization code and the refresh family carry too), never the session id or its hash: an RP that
/// leaks a `sid` leaks nothing that resumes or identifies the cookie. Two sessions of one user started
/// in the same millisecond would share a `sid`; a logout then ends both at the RP, which is safe.
public struct SessionIdentifier: Sendable {
    let key: [UInt8]

    /// `key` must be the same in every process sharing the database (derive it from the server secret).
    public init(key: [UInt8]) { self.key = key }

    /// The `sid` of the session `userId` started at `signedInAt` (stored at millisecond precision).
    public func sid(userId: String, signedInAt: Date) -> String {
        let millis = Int64((signedInAt.timeIntervalSince1970 * 1000).rounded())
        let mac = HMACSHA256.authenticationCode(for: Array("gatehouse/sid/\(userId)/\(millis)".utf8), key: key)
        return Base64URL.encode(mac.prefix(16))
    }

    public func sid(for session: Session) -> String { sid(userId: session.userId, signedInAt: session.createdAt) }
}
