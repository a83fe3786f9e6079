/// A strict decoder for the CBOR that WebAuthn carries (attestation objects, COSE keys,
/// authenticator extensions).
///
/// It accepts only definite lengths in their shortest encoding, distinct map keys, valid UTF-8
/// text, integers, strings, arrays, maps, booleans and null, nested at most ``maximumDepth`` deep;
/// anything else is an error, never a best guess. Because every accepted item has exactly one
/// encoding under these rules, ``CBOREncoder`` writes an accepted input back byte for byte.
/// Why a decoder of our own rather than libcbor: docs/webauthn.md.
public enum CBORDecoder {
    /// Arrays and maps deeper than this are refused (WebAuthn's deepest structure is 3).
    public static let maximumDepth = 16

    /// Decodes exactly one item filling all of `bytes`.
    public static func decode(_ bytes: [UInt8]) throws(CBORError) -> CBORValue {
        let (value, end) = try decodePrefix(bytes, from: 0)
        guard end == bytes.count else { throw .trailingBytes }
        return value
    }

    /// Decodes one item starting at `start`; returns it and the index just past it (authenticator
    /// data holds a COSE key followed by more bytes, with no length in front).
    public static func decodePrefix(_ bytes: [UInt8], from start: Int) throws(CBORError) -> (CBORValue, Int) {
        var reader = Reader(bytes: bytes, index: start)
        let value = try reader.item(depth: 0)
        return (value, reader.index)
    }

    private struct Reader {
        let bytes: [UInt8]
        var index: Int

        mutating func byte() throws(CBORError) -> UInt8 {
            guard index < bytes.count else { throw .truncated }
            defer { index += 1 }
            return bytes[index]
        }

        /// The argument of a head whose additional information is `info`, minimal encoding enforced.
        mutating func argument(_ info: UInt8) throws(CBORError) -> UInt64 {
            switch info {
            case 0..<24: return UInt64(info)
            case 24:
                let value = UInt64(try byte())
                guard value >= 24 else { throw .nonMinimalEncoding }
                return value
            case 25, 26, 27:
                let width = 1 << Int(info - 24)   // 2, 4, 8 bytes
                var value: UInt64 = 0
                for _ in 0..<width { value = value << 8 | UInt64(try byte()) }
                guard value >> (width * 4) != 0 else { throw .nonMinimalEncoding }
                return value
            case 31: throw .unsupported   // indefinite length
            default: throw .malformed
            }
        }

        mutating func length(_ info: UInt8) throws(CBORError) -> Int {
            let value = try argument(info)
            // Every element takes at least one byte, so a longer count cannot be honest.
            guard value <= UInt64(bytes.count - index) else { throw .truncated }
            return Int(value)
        }

        mutating func take(_ count: Int) throws(CBORError) -> ArraySlice<UInt8> {
            guard count <= bytes.count - index else { throw .truncated }
            defer { index += count }
            return bytes[index..<(index + count)]
        }

        mutating func item(depth: Int) throws(CBORError) -> CBORValue {
            let head = try byte()
            let major = head >> 5, info = head & 0x1f
            switch major {
            case 0: return .unsigned(try argument(info))
            case 1: return .negative(try argument(info))
            case 2: return .bytes(Array(try take(try length(info))))
            case 3:
                let raw = try take(try length(info))
                guard let text = String(validating: raw, as: UTF8.self) else { throw .invalidUTF8 }
                return .text(text)
            case 4:
                guard depth < CBORDecoder.maximumDepth else { throw .tooDeep }
                let count = try length(info)
                var items: [CBORValue] = []
                items.reserveCapacity(count)
                for _ in 0..<count { items.append(try item(depth: depth + 1)) }
                return .array(items)
            case 5:
                guard depth < CBORDecoder.maximumDepth else { throw .tooDeep }
                let count = try length(info)
                var entries: [CBORMapEntry] = []
                var seen = Set<CBORValue>()
                for _ in 0..<count {
                    let key = try item(depth: depth + 1)
                    guard seen.insert(key).inserted else { throw .duplicateKey }
                    entries.append(CBORMapEntry(key, try item(depth: depth + 1)))
                }
                return .map(entries)
            case 6: throw .unsupported   // tags
            default:
                switch info {
                case 20: return .bool(false)
                case 21: return .bool(true)
                case 22: return .null
                default: throw .unsupported   // undefined, floats, other simple values, break
                }
            }
        }
    }
}
