/// Writes ``CBORValue``s in the shortest form, map entries in their given order: the inverse of
/// ``CBORDecoder`` (tests build authenticator responses with it; the fuzzer checks the round trip).
public enum CBOREncoder {
    /// The encoding of `value`.
    public static func encode(_ value: CBORValue) -> [UInt8] {
        var out: [UInt8] = []
        write(value, into: &out)
        return out
    }

    private static func head(_ major: UInt8, _ argument: UInt64, into out: inout [UInt8]) {
        let type = major << 5
        switch argument {
        case 0..<24: out.append(type | UInt8(argument))
        case 24...0xff: out += [type | 24, UInt8(argument)]
        case 0x100...0xffff: out.append(type | 25); appendBigEndian(argument, width: 2, into: &out)
        case 0x1_0000...0xffff_ffff: out.append(type | 26); appendBigEndian(argument, width: 4, into: &out)
        default: out.append(type | 27); appendBigEndian(argument, width: 8, into: &out)
        }
    }

    private static func appendBigEndian(_ value: UInt64, width: Int, into out: inout [UInt8]) {
        for shift in stride(from: (width - 1) * 8, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    private static func write(_ value: CBORValue, into out: inout [UInt8]) {
        switch value {
        case .unsigned(let n): head(0, n, into: &out)
        case .negative(let n): head(1, n, into: &out)
        case .bytes(let bytes): head(2, UInt64(bytes.count), into: &out); out += bytes
        case .text(let text): head(3, UInt64(text.utf8.count), into: &out); out += text.utf8
        case .array(let items):
            head(4, UInt64(items.count), into: &out)
            for item in items { write(item, into: &out) }
        case .map(let entries):
            head(5, UInt64(entries.count), into: &out)
            for entry in entries { write(entry.key, into: &out); write(entry.value, into: &out) }
        case .bool(let flag): out.append(flag ? 0xf5 : 0xf4)
        case .null: out.append(0xf6)
        }
    }
}
