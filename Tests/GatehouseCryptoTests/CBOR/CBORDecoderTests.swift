import GatehouseCrypto
import Testing

private func hex(_ text: String) -> [UInt8] { Hex.decode(text)! }

@Suite struct CBORDecoderTests {
    /// RFC 8949 Appendix A examples within the accepted subset.
    static let rfc8949Examples: [(String, CBORValue)] = [
        ("00", .unsigned(0)), ("17", .unsigned(23)), ("1818", .unsigned(24)), ("1903e8", .unsigned(1000)),
        ("1a000f4240", .unsigned(1_000_000)), ("1b000000e8d4a51000", .unsigned(1_000_000_000_000)),
        ("1bffffffffffffffff", .unsigned(.max)), ("20", .integer(-1)), ("3863", .integer(-100)), ("3903e7", .integer(-1000)),
        ("3bffffffffffffffff", .negative(.max)), ("f4", .bool(false)), ("f5", .bool(true)), ("f6", .null),
        ("40", .bytes([])), ("4401020304", .bytes([1, 2, 3, 4])), ("60", .text("")), ("6161", .text("a")),
        ("62c3bc", .text("\u{00fc}")), ("64f0908591", .text("\u{10151}")), ("80", .array([])),
        ("83010203", .array([.unsigned(1), .unsigned(2), .unsigned(3)])),
        ("8301820203820405", .array([.unsigned(1), .array([.unsigned(2), .unsigned(3)]), .array([.unsigned(4), .unsigned(5)])])),
        ("a0", .map([])),
        ("a201020304", .map([CBORMapEntry(.unsigned(1), .unsigned(2)), CBORMapEntry(.unsigned(3), .unsigned(4))])),
        ("a26161016162820203", .map([CBORMapEntry(.text("a"), .unsigned(1)), CBORMapEntry(.text("b"), .array([.unsigned(2), .unsigned(3)]))])),
    ]

    @Test func decodesTheRFCExamplesAndEncodesThemBack() throws {
        for (encoded, value) in Self.rfc8949Examples {
            #expect(try CBORDecoder.decode(hex(encoded)) == value, "\(encoded)")
            #expect(CBOREncoder.encode(value) == hex(encoded), "\(encoded)")
        }
    }

    @Test(arguments: [
        ("", CBORError.truncated), ("18", .truncated), ("1903", .truncated), ("44010203", .truncated),
        ("62c3", .truncated), ("830102", .truncated), ("a1", .truncated), ("a101", .truncated),
        ("0000", .trailingBytes),
        ("1817", .nonMinimalEncoding), ("190017", .nonMinimalEncoding), ("1a0000ffff", .nonMinimalEncoding),
        ("1b00000000ffffffff", .nonMinimalEncoding), ("5801ff", .nonMinimalEncoding),
        ("5f42010243030405ff", .unsupported), ("9fff", .unsupported), ("bfff", .unsupported), ("7f6161ff", .unsupported),
        ("c11a514b67b0", .unsupported), ("f93c00", .unsupported), ("fb3ff199999999999a", .unsupported), ("f7", .unsupported),
        ("f0", .unsupported), ("ff", .unsupported),
        ("1c", .malformed), ("3d", .malformed), ("5e", .malformed),
        ("62c328", .invalidUTF8), ("61ff", .invalidUTF8),
        ("a201020103", .duplicateKey), ("a2616101616102", .duplicateKey),
    ])
    func refuses(_ input: String, _ error: CBORError) {
        #expect(throws: error, "\(input)") { try CBORDecoder.decode(hex(input)) }
    }

    @Test func refusesNestingBeyondTheLimit() throws {
        let deep = [UInt8](repeating: 0x81, count: CBORDecoder.maximumDepth + 1) + [0x00]
        #expect(throws: CBORError.tooDeep) { try CBORDecoder.decode(deep) }
        let allowed = [UInt8](repeating: 0x81, count: CBORDecoder.maximumDepth) + [0x00]
        #expect(try CBORDecoder.decode(allowed) != .null)
    }

    @Test func refusesALengthLongerThanTheInputWithoutAllocatingIt() {
        // A claimed 2^32-element array in five bytes.
        #expect(throws: CBORError.truncated) { try CBORDecoder.decode(hex("9affffffff")) }
        #expect(throws: CBORError.truncated) { try CBORDecoder.decode(hex("5bffffffffffffffff")) }
    }

    @Test func decodesAPrefixAndReportsWhereItEnds() throws {
        let bytes = hex("a10102") + [0xde, 0xad]
        let (value, end) = try CBORDecoder.decodePrefix(bytes, from: 0)
        #expect(value[1] == .unsigned(2))
        #expect(end == 3)
        #expect(throws: CBORError.trailingBytes) { try CBORDecoder.decode(bytes) }
    }

    @Test func mapLookupsByIntegerAndTextKeys() throws {
        let value = try CBORDecoder.decode(hex("a301022003636b6579f5"))
        #expect(value[1]?.int == 2)
        #expect(value[-1]?.int == 3)
        #expect(value["key"] == .bool(true))
        #expect(value[7] == nil)
    }
}
