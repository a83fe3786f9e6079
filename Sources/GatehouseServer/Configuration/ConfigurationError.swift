/// A configuration value that stops start-up: names the key and the problem in one line.
public struct ConfigurationError: Error, CustomStringConvertible, Equatable {
    public let key: String
    public let problem: String

    public init(key: String, problem: String) { self.key = key; self.problem = problem }

    public var description: String { "configuration error: \(key): \(problem)" }
}
