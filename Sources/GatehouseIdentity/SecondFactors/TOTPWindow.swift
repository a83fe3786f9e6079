import GatehouseCrypto

/// Which time steps a TOTP code is accepted for: the current one and one either side (RFC 6238 §5.2's
/// allowance for a clock that drifted and for the seconds a person takes to type).
public enum TOTPWindow {
    /// Steps accepted on either side of the current one.
    public static let drift: Int64 = 1

    /// The step whose code `code` is, nearest the current step first; nil when none matches.
    public static func matchingStep(code: String, secret: [UInt8], unixTime: Int64) -> Int64? {
        let now = OneTimePassword.step(unixTime: unixTime)
        var found: Int64?
        // Every candidate is computed and compared in constant time, so the time taken says nothing
        // about which step (if any) matched.
        for offset in [Int64(0), -1, 1] where abs(offset) <= drift {
            let step = now + offset
            if ConstantTime.equals(Array(OneTimePassword.totp(secret: secret, step: step).utf8), Array(code.utf8)), found == nil {
                found = step
            }
        }
        return found
    }

    /// Whether `text` has a TOTP code's shape (six ASCII digits, spaces allowed as apps group them).
    public static func normalized(_ text: String) -> String? {
        let digits = text.filter { $0 != " " }
        guard digits.utf8.count == OneTimePassword.digits, digits.utf8.allSatisfy({ (48...57).contains($0) }) else { return nil }
        return digits
    }
}
