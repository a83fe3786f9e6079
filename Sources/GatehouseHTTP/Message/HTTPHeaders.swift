/// Ordered HTTP header fields with case-insensitive lookup. Repeated fields (e.g. `Set-Cookie`) are kept apart.
public struct HTTPHeaders: Sendable, Sequence, ExpressibleByDictionaryLiteral, Equatable {
    public private(set) var fields: [(name: String, value: String)] = []

    public init() {}
    public init(_ fields: [(String, String)]) {
        for (name, value) in fields { add(name, value) }
    }
    public init(dictionaryLiteral elements: (String, String)...) { self.init(elements) }

    /// The first value of the named field, if any.
    // Index loops rather than `first(where:)`/`filter`: the closures copied each (name, value) pair,
    // retaining and releasing both strings for every field looked at.
    public subscript(name: String) -> String? {
        for index in fields.indices where fields[index].name.caseInsensitiveEquals(name) { return fields[index].value }
        return nil
    }

    /// Every value of the named field, in order.
    public func values(_ name: String) -> [String] {
        var result: [String] = []
        for index in fields.indices where fields[index].name.caseInsensitiveEquals(name) { result.append(fields[index].value) }
        return result
    }

    public func contains(_ name: String) -> Bool {
        for index in fields.indices where fields[index].name.caseInsensitiveEquals(name) { return true }
        return false
    }

    /// Appends a field, keeping any existing ones of the same name.
    public mutating func add(_ name: String, _ value: String) { append(name, value) }

    /// Replaces every field of this name with a single one.
    public mutating func set(_ name: String, _ value: String) {
        // Usually the name is absent: skip `removeAll`, which would rewrite the array.
        if contains(name) { remove(name) }
        append(name, value)
    }

    /// Sets the field only when it is absent (middleware defaults that handlers may override).
    public mutating func setIfAbsent(_ name: String, _ value: String) {
        if !contains(name) { append(name, value) }
    }

    /// Grows straight to eight fields: a response gains about six (content type plus the middleware's
    /// defaults), and doubling from one would reallocate three times per request.
    private mutating func append(_ name: String, _ value: String) {
        if fields.count == fields.capacity && fields.count < 8 { fields.reserveCapacity(8) }
        fields.append((name, value))
    }

    public mutating func remove(_ name: String) { fields.removeAll { $0.name.caseInsensitiveEquals(name) } }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { fields.makeIterator() }

    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.count == rhs.fields.count
            && zip(lhs.fields, rhs.fields).allSatisfy { $0.name.caseInsensitiveEquals($1.name) && $0.value == $1.value }
    }
}

extension String {
    /// ASCII case-insensitive comparison, as header names and schemes need (no locale, no allocation).
    public func caseInsensitiveEquals(_ other: String) -> Bool {
        let a = utf8, b = other.utf8
        guard a.count == b.count else { return false }
        // Contiguous fast path (native and literal strings): a plain byte loop instead of zipped
        // UTF-8 view iterators, which dominated header lookups.
        if let result = a.withContiguousStorageIfAvailable({ x in
            b.withContiguousStorageIfAvailable { y in Self.asciiCaseInsensitiveEqual(x, y) }
        }), let result { return result }
        for (x, y) in zip(a, b) where x != y {
            let lx = (x >= 65 && x <= 90) ? x + 32 : x
            let ly = (y >= 65 && y <= 90) ? y + 32 : y
            if lx != ly { return false }
        }
        return true
    }

    private static func asciiCaseInsensitiveEqual(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        for i in 0..<a.count {
            let x = a[i], y = b[i]
            if x == y { continue }
            let lx = (x >= 65 && x <= 90) ? x + 32 : x
            let ly = (y >= 65 && y <= 90) ? y + 32 : y
            if lx != ly { return false }
        }
        return true
    }
}
