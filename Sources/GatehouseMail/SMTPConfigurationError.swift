/// A mail setting that cannot be used: names the key and the problem, never the value
/// (the value may be the password). The server maps it onto its own `ConfigurationError`.
public struct SMTPConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The JSON key at fault, as written in the `mail` object (`"url"`, `"timeout_seconds.connect"`, ...).
    public let key: String
    /// What is wrong with it, in a short phrase.
    public let problem: String

    public init(key: String, problem: String) { self.key = key; self.problem = problem }

    public var description: String { "mail configuration error: \(key): \(problem)" }
}
