/// Ordered key/value pairs from a query string or an `application/x-www-form-urlencoded` body.
///
/// Repeated keys are kept; `self["k"]` gives the first, `all("k")` every one. OAuth endpoints must
/// refuse repeated parameters (RFC 6749 §3.1), so `single("k")` reports them.
public struct URLEncodedForm: Sendable, Equatable {
    public private(set) var pairs: [(key: String, value: String)]

    public init(pairs: [(String, String)] = []) { self.pairs = pairs.map { (key: $0.0, value: $0.1) } }

    /// Parses `a=1&b=2&a=3`. Empty segments are skipped; a key without `=` has an empty value.
    public init<S: Collection<UInt8>>(parsing input: S) throws(PercentDecoding.Failure) {
        try self.init(parsingBytes: input as? ArraySlice<UInt8> ?? ArraySlice(input))
    }

    /// Concrete over `ArraySlice` so the parse is specialised (generic code across modules is not).
    init(parsingBytes input: ArraySlice<UInt8>) throws(PercentDecoding.Failure) {
        pairs = []
        // An index walk, not `split`: the generic split called a closure per byte, a tenth of an
        // introspection request's instructions for its 600-byte token.
        var start = input.startIndex
        while start < input.endIndex {
            let end = input[start...].firstIndex(of: UInt8(ascii: "&")) ?? input.endIndex
            defer { start = end < input.endIndex ? end + 1 : end }
            guard start < end else { continue }
            let segment = input[start..<end]
            if let eq = segment.firstIndex(of: UInt8(ascii: "=")) {
                let key = try PercentDecoding.decode(segment[segment.startIndex..<eq], plusIsSpace: true)
                let value = try PercentDecoding.decode(segment[segment.index(after: eq)...], plusIsSpace: true)
                pairs.append((key, value))
            } else {
                pairs.append((try PercentDecoding.decode(segment, plusIsSpace: true), ""))
            }
        }
    }

    public init(parsing string: String) throws(PercentDecoding.Failure) { try self.init(parsingBytes: ArraySlice(string.utf8)) }

    public subscript(key: String) -> String? { pairs.first { $0.key == key }?.value }

    public func all(_ key: String) -> [String] { pairs.filter { $0.key == key }.map(\.value) }

    public var isEmpty: Bool { pairs.isEmpty }

    /// The value of a parameter that must appear at most once.
    public func single(_ key: String) throws(RepeatedParameter) -> String? {
        let values = all(key)
        if values.count > 1 { throw RepeatedParameter(name: key) }
        return values.first
    }

    public mutating func append(_ key: String, _ value: String) { pairs.append((key, value)) }

    /// Serialises back to `k=v&…` with RFC 3986 percent-encoding.
    public var encoded: String {
        pairs.map { PercentDecoding.encode($0.key) + "=" + PercentDecoding.encode($0.value) }.joined(separator: "&")
    }

    public static func == (lhs: URLEncodedForm, rhs: URLEncodedForm) -> Bool {
        lhs.pairs.count == rhs.pairs.count && zip(lhs.pairs, rhs.pairs).allSatisfy { $0 == $1 }
    }
}

/// A parameter that appeared more than once where the protocol allows it once.
public struct RepeatedParameter: Error, Equatable, Sendable {
    public let name: String
    public init(name: String) { self.name = name }
}
