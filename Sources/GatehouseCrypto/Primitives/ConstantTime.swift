import COpenSSL

/// Comparison of secrets in time independent of where they differ (`CRYPTO_memcmp`).
public enum ConstantTime {
    /// `true` when `a` and `b` are byte-for-byte equal.
    ///
    /// Lengths are compared first — a length is not secret for the values compared here (MACs,
    /// hashes, PKCE challenges of fixed size) — but the content comparison still runs over `a` so
    /// the timing does not reveal the length check.
    public static func equals<A: Collection, B: Collection>(_ a: A, _ b: B) -> Bool
    where A.Element == UInt8, B.Element == UInt8 {
        let left = Array(a), right = Array(b)
        let sameLength = left.count == right.count
        let other = sameLength ? right : left
        let diff = left.withUnsafeBytes { l in
            other.withUnsafeBytes { r in CRYPTO_memcmp(l.baseAddress, r.baseAddress, l.count) }
        }
        return sameLength && diff == 0
    }

    /// Compares the UTF-8 bytes of two strings in constant time.
    public static func equals(_ a: String, _ b: String) -> Bool {
        equals(Array(a.utf8), Array(b.utf8))
    }
}
