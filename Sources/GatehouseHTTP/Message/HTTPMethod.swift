/// An HTTP request method. A struct rather than an enum so extension methods pass through untouched.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) {
        // Methods are case-sensitive (RFC 9110 §9.1); upper-case them only when needed, to skip an allocation.
        self.rawValue = rawValue.utf8.contains(where: { $0 >= 0x61 && $0 <= 0x7A }) ? rawValue.uppercased() : rawValue
    }
    public init(_ rawValue: String) { self.init(rawValue: rawValue) }
    public var description: String { rawValue }

    public static let get = HTTPMethod("GET")
    public static let head = HTTPMethod("HEAD")
    public static let post = HTTPMethod("POST")
    public static let put = HTTPMethod("PUT")
    public static let patch = HTTPMethod("PATCH")
    public static let delete = HTTPMethod("DELETE")
    public static let options = HTTPMethod("OPTIONS")
}
