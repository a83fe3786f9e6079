import Foundation

/// A JSON value, used for claims and header members this library does not model itself.
///
/// Numbers keep their integer form when they have one, so `exp` and friends round-trip exactly.
public enum JSONValue: Sendable, Hashable, Codable {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Int64.self) { self = .integer(value) }
        else if let value = try? container.decode(Double.self) { self = .double(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([JSONValue].self) { self = .array(value) }
        else { self = .object(try container.decode([String: JSONValue].self)) }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// The string, if this is a string.
    public var stringValue: String? { if case .string(let value) = self { value } else { nil } }

    /// The number as seconds, if this is a number (JWT NumericDate may be fractional).
    public var numberValue: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }
}

/// A boolean claim that providers encode either as JSON `true`/`false` or as the strings
/// `"true"`/`"false"` — Apple does the latter for `email_verified` and `is_private_email`.
public struct BooleanClaim: Sendable, Hashable, Codable {
    /// The boolean value.
    public let value: Bool

    public init(_ value: Bool) { self.value = value }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let value = try? container.decode(Bool.self) {
            self.value = value
            return
        }
        switch try container.decode(String.self) {
        case "true": value = true
        case "false": value = false
        default:
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "expected true/false or \"true\"/\"false\"")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }

    /// Reads a ``JSONValue`` as a boolean claim; `nil` if it is neither form.
    public init?(_ json: JSONValue) {
        switch json {
        case .bool(let value): self.value = value
        case .string("true"): value = true
        case .string("false"): value = false
        default: return nil
        }
    }
}
