/// What a new password must satisfy (NIST SP 800-63B: length over composition rules).
public struct PasswordPolicy: Sendable {
    public var minimumLength: Int
    public var maximumLength: Int

    public init(minimumLength: Int = 10, maximumLength: Int = 256) {
        self.minimumLength = minimumLength; self.maximumLength = maximumLength
    }

    /// A few of the most common passwords; the length rule already rejects most of the rest.
    static let common: Set<String> = ["password123", "1234567890", "qwertyuiop", "password1234", "iloveyou123",
                                      "12345678910", "passw0rd123", "letmein1234", "welcome1234", "administrator"]

    /// Returns why the password is refused, or nil when it is acceptable.
    public func problem(with password: String, email: EmailAddress?) -> String? {
        let length = password.count
        if length < minimumLength { return "Use at least \(minimumLength) characters." }
        if length > maximumLength { return "Use at most \(maximumLength) characters." }
        if password.allSatisfy(\.isWhitespace) { return "The password cannot be only spaces." }
        if Self.common.contains(password.lowercased()) { return "This password is too common. Choose another." }
        if let email, password.lowercased() == email.value || password.lowercased() == email.value.split(separator: "@").first.map(String.init) {
            return "The password cannot be your email address."
        }
        return nil
    }
}
