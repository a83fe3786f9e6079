import Foundation
import GatehouseServer
import GatehouseStore

/// A `gatehouse` subcommand.
protocol CLICommand: Sendable {
    static var name: String { get }
    static var summary: String { get }
    static var help: String { get }
    /// Option names this command takes (`--config`), and whether each takes a value.
    static var options: [String: Bool] { get }
    /// Whether the command takes an action word (`user create`); others refuse stray words.
    static var takesAction: Bool { get }
    static func run(options: inout CommandOptions, environment: [String: String]) async throws -> Int32
}

extension CLICommand {
    static var takesAction: Bool { false }
}

enum ExitCode {
    static let success: Int32 = 0
    static let failure: Int32 = 1
    static let usage: Int32 = 2
    static let schemaTooNew: Int32 = 3

    /// Prints an error in one line and picks its exit code.
    static func report(_ error: any Error) -> Int32 {
        switch error {
        case let error as UsageError:
            printError("gatehouse: \(error.message)")
            return usage
        case let error as RuntimeFailure:
            printError("gatehouse: \(error.message)")
            return failure
        case let error as ConfigurationError:
            printError("gatehouse: \(error)")
            return usage
        case let error as StoreError where error.kind == .schemaTooNew:
            printError("gatehouse: \(error)")
            return schemaTooNew
        case let error as StoreError where error.kind == .unavailable:
            // The operator's terminal or journal, not an HTTP body: the library's reason, host and port.
            printError("gatehouse: database unavailable: \(error.detail)")
            return failure
        default:
            printError("gatehouse: \(error)")
            return failure
        }
    }
}

struct UsageError: Error { let message: String }

/// A well-formed command the data refuses (no such user or client, the email is taken): exit 1, not 2.
struct RuntimeFailure: Error { let message: String }

/// `--name value` / `--flag` options after the subcommand.
struct CommandOptions {
    private(set) var values: [String: [String]] = [:]
    /// Arguments that are not options (`create` in `user create --email …`).
    private(set) var positional: [String] = []

    init(parsing arguments: [String], allowed: [String: Bool]) throws {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            var name = argument, inlineValue: String?
            if let eq = argument.firstIndex(of: "="), argument.hasPrefix("--") {
                name = String(argument[..<eq]); inlineValue = String(argument[argument.index(after: eq)...])
            }
            if !argument.hasPrefix("-") {
                positional.append(argument)
                index += 1
                continue
            }
            guard let takesValue = allowed[name] else { throw UsageError(message: "unknown option \(argument)") }
            if takesValue {
                if let inlineValue {
                    values[name, default: []].append(inlineValue)
                } else {
                    guard index + 1 < arguments.count else { throw UsageError(message: "\(name) needs a value") }
                    values[name, default: []].append(arguments[index + 1])
                    index += 1
                }
            } else {
                guard inlineValue == nil else { throw UsageError(message: "\(name) takes no value") }
                values[name, default: []].append("")
            }
            index += 1
        }
    }

    func value(_ name: String) -> String? { values[name]?.last }
    func all(_ name: String) -> [String] { values[name] ?? [] }
    func flag(_ name: String) -> Bool { values[name] != nil }
}
