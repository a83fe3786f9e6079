import Foundation
import GatehouseCrypto

/// The device cookie a browser gets after a successful password sign-in: `<device id>.<HMAC of id and account>`.
///
/// It lets the password back-off tell the owner's own browser apart from everybody else: failures are counted
/// per account *and* client, and a browser holding a valid cookie for the account is its own client, exempt from
/// the counters that anyone else's failures fill. The MAC binds the cookie to one account (its normalised email),
/// so a cookie earned by signing in to one's own account exempts nothing on someone else's. A browser keeps one
/// such cookie: the account it last signed in to.
public struct KnownDevices: Sendable {
    let mac: HMACSHA256

    public init(key: [UInt8]) { mac = HMACSHA256(key: key) }

    /// A new cookie value for a browser that just signed in to `email`'s account (keeps `existing`'s device id).
    public func cookieValue(email: String, existing: String? = nil) -> String {
        let id = existing.flatMap(Self.deviceID) ?? SecureRandom.token(byteCount: 16)
        return id + "." + Base64URL.encode(mac.authenticationCode(for: Self.message(id: id, email: email)))
    }

    /// The device id of `cookie` when it was issued for `email`'s account; nil otherwise.
    public func device(_ cookie: String?, email: String) -> String? {
        guard let cookie, cookie.utf8.count <= 80, let id = Self.deviceID(cookie) else { return nil }
        let presented = cookie.dropFirst(id.count + 1)
        let expected = Base64URL.encode(mac.authenticationCode(for: Self.message(id: id, email: email)))
        return ConstantTime.equals(Array(presented.utf8), Array(expected.utf8)) ? id : nil
    }

    static func message(id: String, email: String) -> String { "device|" + id + "|" + email }

    /// The id part (22 base64url characters) of a well-formed cookie.
    static func deviceID(_ cookie: String) -> String? {
        let parts = cookie.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].utf8.count == 22, Base64URL.decode(String(parts[0]))?.count == 16 else { return nil }
        return String(parts[0])
    }
}
