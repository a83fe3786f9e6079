/// One CBOR data item (RFC 8949) of the subset WebAuthn uses: integers, byte and text strings,
/// arrays, maps, `false`, `true` and `null`.
///
/// Tags, floats, `undefined` and other simple values are not representable, so a decoder that
/// met one refuses the whole input instead of guessing.
public indirect enum CBORValue: Sendable, Hashable {
    /// Major type 0.
    case unsigned(UInt64)
    /// Major type 1: the value is `-1 - n`.
    case negative(UInt64)
    /// Major type 2.
    case bytes([UInt8])
    /// Major type 3 (valid UTF-8).
    case text(String)
    /// Major type 4.
    case array([CBORValue])
    /// Major type 5, entries in the order they were encoded (keys distinct).
    case map([CBORMapEntry])
    /// Simple values 20 and 21.
    case bool(Bool)
    /// Simple value 22.
    case null

    /// The value as a Swift `Int` when it is an integer that fits.
    public var int: Int? {
        switch self {
        case .unsigned(let n): n <= UInt64(Int.max) ? Int(n) : nil
        case .negative(let n): n <= UInt64(Int.max) ? -1 - Int(n) : nil
        default: nil
        }
    }

    /// The byte string's bytes.
    public var bytes: [UInt8]? {
        if case .bytes(let value) = self { return value }
        return nil
    }

    /// The text string.
    public var text: String? {
        if case .text(let value) = self { return value }
        return nil
    }

    /// The map's entries.
    public var entries: [CBORMapEntry]? {
        if case .map(let value) = self { return value }
        return nil
    }

    /// The value under integer key `key` of a map.
    public subscript(key: Int) -> CBORValue? {
        entries?.first { $0.key.int == key }?.value
    }

    /// The value under text key `key` of a map.
    public subscript(key: String) -> CBORValue? {
        entries?.first { $0.key.text == key }?.value
    }

    /// An integer value from a Swift `Int`.
    public static func integer(_ value: Int) -> CBORValue {
        value >= 0 ? .unsigned(UInt64(value)) : .negative(UInt64(-1 - value))
    }
}

/// One key/value pair of a CBOR map.
public struct CBORMapEntry: Sendable, Hashable {
    public let key: CBORValue
    public let value: CBORValue

    public init(_ key: CBORValue, _ value: CBORValue) {
        self.key = key
        self.value = value
    }
}

/// Why bytes were refused as CBOR.
public enum CBORError: Error, Sendable, Equatable {
    /// The input ended inside an item.
    case truncated
    /// Bytes follow the item where none may.
    case trailingBytes
    /// An indefinite length, a tag, a float or another simple value: outside the accepted subset.
    case unsupported
    /// A length or integer not written in its shortest form (CTAP2 canonical encoding requires it).
    case nonMinimalEncoding
    /// A text string that is not UTF-8.
    case invalidUTF8
    /// A map holding the same key twice.
    case duplicateKey
    /// Arrays and maps nested deeper than the decoder allows.
    case tooDeep
    /// A reserved additional-information value (28–30).
    case malformed
}
