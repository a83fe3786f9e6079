import Foundation
import FuzzSupport
import GatehouseCrypto

/// The strict JSON parser (JOSE headers, JWT claims, provider responses): arbitrary bytes in.
///
/// Properties: an accepted document re-serialises to JSON that parses to the same value (and the
/// serialisation is a fixed point); a duplicated member, even spelled with escapes, is refused;
/// nesting stays within the documented limit; whatever we accept, Foundation's parser accepts too.
func fuzzJSON(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = bytes(data, size)
    guard let value = JSONValue(parsing: input) else { return 0 }

    let serialised = value.jsonBytes
    let reparsed = JSONValue(parsing: serialised)
    require(reparsed == value, "serialisation does not round-trip: \(String(decoding: serialised, as: UTF8.self))")
    require(reparsed?.jsonBytes == serialised, "serialisation is not a fixed point")

    require(depth(of: value) <= 33, "accepted nesting deeper than 32 levels")

    // Surrounding whitespace changes nothing.
    require(JSONValue(parsing: Array(" \n\t".utf8) + input + Array("\r\n ".utf8)) == value, "whitespace changed the value")

    // A duplicated member is refused, whether the copy is spelled plainly or entirely in \u escapes.
    for escaped in [false, true] {
        if let duplicated = withDuplicateMember(value, escaped: escaped) {
            require(JSONValue(parsing: duplicated) == nil,
                    "accepted a duplicate member: \(String(decoding: duplicated, as: UTF8.self))")
        }
    }

    // Stricter than Foundation, never laxer.
    let foundation = try? JSONSerialization.jsonObject(with: Data(input), options: [.fragmentsAllowed])
    require(foundation != nil, "accepted a document Foundation's JSONSerialization refuses")
    return 0
}

private func depth(of value: JSONValue) -> Int {
    switch value {
    case .array(let values): 1 + (values.map(depth).max() ?? 0)
    case .object(let members): 1 + (members.values.map(depth).max() ?? 0)
    default: 0
    }
}

/// The value's JSON with the first member (depth-first) of the first non-empty object repeated,
/// or nil when the value holds no member at all.
private func withDuplicateMember(_ value: JSONValue, escaped: Bool) -> [UInt8]? {
    var done = false
    var out: [UInt8] = []
    func write(_ value: JSONValue) {
        switch value {
        case .array(let values):
            out.append(UInt8(ascii: "["))
            for (offset, element) in values.enumerated() {
                if offset > 0 { out.append(UInt8(ascii: ",")) }
                write(element)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            let keys = members.keys.sorted()
            for (offset, key) in keys.enumerated() {
                if offset > 0 { out.append(UInt8(ascii: ",")) }
                out += JSONValue.string(key).jsonBytes
                out.append(UInt8(ascii: ":"))
                write(members[key]!)
            }
            if !done, let first = keys.first {
                done = true
                out.append(UInt8(ascii: ","))
                out += escaped ? escapedString(first) : JSONValue.string(first).jsonBytes
                out += Array(":null".utf8)
            }
            out.append(UInt8(ascii: "}"))
        default:
            out += value.jsonBytes
        }
    }
    write(value)
    return done ? out : nil
}

/// `"…"` with every character as `\uXXXX` (surrogate pairs beyond the BMP).
private func escapedString(_ text: String) -> [UInt8] {
    var out = "\""
    for unit in text.utf16 { out += "\\u" + String(repeating: "0", count: 4 - String(unit, radix: 16).count) + String(unit, radix: 16) }
    return Array((out + "\"").utf8)
}
