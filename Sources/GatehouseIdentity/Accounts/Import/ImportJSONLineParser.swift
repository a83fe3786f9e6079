/// A JSON-lines record read straight from its UTF-8 bytes, for the lines every export is made of: one object
/// whose values are strings, numbers, booleans, null or a list of flat objects (`identities`).
///
/// Foundation's `JSONSerialization` builds `NSDictionary`/`NSNumber` trees that are then converted; on a
/// million-row import that was the largest single cost. Anything this parser does not read with certainty
/// (invalid JSON, a duplicate key, nesting the import does not support, a number beyond a double's exact
/// integers, whitespace other than ASCII around the object) gives nil, and the line goes the Foundation way,
/// which decides it — so what a line means, and every error message, is what it was.
struct ImportJSONLineParser {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index: Int

    /// The fields of the object on `line`, or nil when the line is to be read by Foundation.
    static func fields(_ line: UnsafeBufferPointer<UInt8>) -> [String: ImportValue]? {
        var parser = ImportJSONLineParser(bytes: line, index: 0)
        parser.skipWhitespace()
        guard let fields = parser.object(nested: false) else { return nil }
        parser.skipWhitespace()
        return parser.index == line.count ? fields : nil
    }

    private mutating func skipWhitespace() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 || bytes[index] == 0x0A || bytes[index] == 0x0D {
            index += 1
        }
    }

    private mutating func consume(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// `{ "key": value, … }`; inside a list (`nested`), values may not be lists themselves.
    private mutating func object(nested: Bool) -> [String: ImportValue]? {
        guard consume(UInt8(ascii: "{")) else { return nil }
        var fields: [String: ImportValue] = [:]
        skipWhitespace()
        if consume(UInt8(ascii: "}")) { return fields }
        while true {
            skipWhitespace()
            guard let key = string() else { return nil }
            skipWhitespace()
            guard consume(UInt8(ascii: ":")) else { return nil }
            skipWhitespace()
            guard let value = value(nested: nested), fields.updateValue(value, forKey: key) == nil else { return nil }
            skipWhitespace()
            if consume(UInt8(ascii: ",")) { continue }
            return consume(UInt8(ascii: "}")) ? fields : nil
        }
    }

    private mutating func value(nested: Bool) -> ImportValue? {
        guard index < bytes.count else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "\""): return string().map { .string($0) }
        case UInt8(ascii: "t"): return literal("true") ? .bool(true) : nil
        case UInt8(ascii: "f"): return literal("false") ? .bool(false) : nil
        case UInt8(ascii: "n"): return literal("null") ? .null : nil
        case UInt8(ascii: "["): return nested ? nil : list()
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number().map { .number($0) }
        default: return nil
        }
    }

    /// `[ {…}, … ]`: only a list of flat objects is an import value.
    private mutating func list() -> ImportValue? {
        guard consume(UInt8(ascii: "[")) else { return nil }
        var objects: [[String: ImportValue]] = []
        skipWhitespace()
        if consume(UInt8(ascii: "]")) { return .objects(objects) }
        while true {
            skipWhitespace()
            guard let object = object(nested: true) else { return nil }
            objects.append(object)
            skipWhitespace()
            if consume(UInt8(ascii: ",")) { continue }
            return consume(UInt8(ascii: "]")) ? .objects(objects) : nil
        }
    }

    private mutating func literal(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { return false }
        index += count
        return true
    }

    /// RFC 8259's number grammar; nil past 15 significant digits or out of a double's range.
    private mutating func number() -> Double? {
        let start = index
        var digits = 0
        func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        _ = consume(UInt8(ascii: "-"))
        guard index < bytes.count, isDigit(bytes[index]) else { return nil }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            digits = 1
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1; digits += 1 }
        }
        if consume(UInt8(ascii: ".")) {
            guard index < bytes.count, isDigit(bytes[index]) else { return nil }
            while index < bytes.count, isDigit(bytes[index]) { index += 1; digits += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if !consume(UInt8(ascii: "+")) { _ = consume(UInt8(ascii: "-")) }
            guard index < bytes.count, isDigit(bytes[index]) else { return nil }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        guard digits <= 15, let value = Double(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)),
              value.isFinite else { return nil }
        return value
    }

    /// A string with its escapes decoded; nil on a control character, a bad escape or a lone surrogate.
    private mutating func string() -> String? {
        guard consume(UInt8(ascii: "\"")) else { return nil }
        let start = index
        // The common case: no escape, so the bytes are the string (the file is valid UTF-8 already).
        while index < bytes.count, bytes[index] != UInt8(ascii: "\""), bytes[index] != UInt8(ascii: "\\"), bytes[index] >= 0x20 {
            index += 1
        }
        guard index < bytes.count, bytes[index] >= 0x20 else { return nil }
        if bytes[index] == UInt8(ascii: "\"") {
            index += 1
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index - 1]), as: UTF8.self)
        }
        var decoded = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: decoded, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { return nil }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded.append(escape)
                case UInt8(ascii: "b"): decoded.append(0x08)
                case UInt8(ascii: "f"): decoded.append(0x0C)
                case UInt8(ascii: "n"): decoded.append(0x0A)
                case UInt8(ascii: "r"): decoded.append(0x0D)
                case UInt8(ascii: "t"): decoded.append(0x09)
                case UInt8(ascii: "u"):
                    guard let scalar = unicodeEscape() else { return nil }
                    decoded.append(contentsOf: String(Character(scalar)).utf8)
                default: return nil
                }
            case 0..<0x20:
                return nil
            default:
                decoded.append(byte)
            }
        }
        return nil
    }

    /// The scalar of `\uXXXX` (the `\u` read), joining a surrogate pair.
    private mutating func unicodeEscape() -> Unicode.Scalar? {
        guard let high = hex4() else { return nil }
        if high < 0xD800 || high > 0xDFFF { return Unicode.Scalar(high) }
        guard high < 0xDC00, consume(UInt8(ascii: "\\")), consume(UInt8(ascii: "u")), let low = hex4(), low >= 0xDC00, low <= 0xDFFF else {
            return nil
        }
        return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
    }

    private mutating func hex4() -> UInt32? {
        guard index + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            index += 1
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }
}
