import Foundation
import Testing
@testable import GatehouseCrypto

@Suite struct JSONParserTests {
    func parse(_ text: String) -> JSONValue? { JSONParser.parse(Array(text.utf8)) }

    @Test func parsesEveryKind() {
        let value = parse(#" {"a":[1,-2,3.5,1e3,true,false,null],"b":{"c":"d"},"e":""} "#)
        #expect(value == .object([
            "a": .array([.integer(1), .integer(-2), .double(3.5), .double(1000), .bool(true), .bool(false), .null]),
            "b": .object(["c": .string("d")]), "e": .string(""),
        ]))
        #expect(parse("9223372036854775807") == .integer(Int64.max))
        #expect(parse("9223372036854775808") == .double(9223372036854775808))
    }

    @Test func decodesEscapesAndUnicode() {
        #expect(parse(#""a\"b\\c\/d\n\t\u00e9\ud83d\ude00""#) == .string("a\"b\\c/d\n\té😀"))
        #expect(parse(#""é😀""#) == .string("é😀"))
    }

    @Test func rejectsInvalidJSON() {
        for text in [#"{"a":1,"a":2}"#, "{\"a\":1} x", "[1,]", "{\"a\" 1}", "01", "1.", "-", ".5", "+1", "tru", "nul",
                     #""\ud83d""#, #""\ude00""#, #""\x""#, "\"a\u{01}\"", "\"abc", "'a'", "[1 2]", "NaN", "1e999",
                     String(repeating: "[", count: 40) + String(repeating: "]", count: 40)] {
            #expect(parse(text) == nil, "accepted: \(text)")
        }
        #expect(JSONParser.parse([0x22, 0xFF, 0x22]) == nil)   // invalid UTF-8
    }

    @Test func serialisationRoundTrips() {
        let value = JSONValue.object(["z": .string("q\"\\\n\u{1}é"), "a": .array([.integer(-5), .double(0.25), .bool(true), .null])])
        let bytes = value.jsonBytes
        #expect(String(decoding: bytes, as: UTF8.self) == #"{"a":[-5,0.25,true,null],"z":"q\"\\\n\u0001é"}"#)
        #expect(JSONValue(parsing: bytes) == value)
    }

    /// The writer copies unescaped runs in one piece: escapes at the start, the end, back to back,
    /// every control byte, non-ASCII and a bridged (non-native) string all come out as the byte-by-byte rule.
    @Test func stringsAreEscapedWhereverTheEscapesFall() {
        let controls = String(decoding: (0..<0x20).map { UInt8($0) }, as: UTF8.self)
        let cases: [(String, String)] = [
            ("", #""""#),
            ("eyJhbGciOiJFUzI1NiJ9.abc-_", #""eyJhbGciOiJFUzI1NiJ9.abc-_""#),
            ("\"a", #""\"a""#), ("a\"", #""a\"""#), ("\"\\\n", #""\"\\\n""#),
            ("é😀\t/", "\"é😀\\t/\""),
            (controls, "\"" + (0..<0x20).map { byte -> String in
                switch byte {
                case 0x0A: return #"\n"#
                case 0x0D: return #"\r"#
                case 0x09: return #"\t"#
                default: return #"\u00"# + (byte < 16 ? "0" : "") + String(byte, radix: 16)
                }
            }.joined() + "\""),
            (NSString(string: "bridged \"x\"").description, #""bridged \"x\"""#),
        ]
        for (input, expected) in cases {
            let bytes = JSONValue.string(input).jsonBytes
            #expect(String(decoding: bytes, as: UTF8.self) == expected)
            #expect(JSONValue(parsing: bytes) == .string(input))
        }
    }

    @Test func duplicateMembersInASignedTokenAreRefused() throws {
        let key = try SigningKey.generate()
        let token = try CompactJWS.sign(payload: Array(#"{"sub":"alice","sub":"admin","exp":4102444800}"#.utf8), with: key)
        let verifier = JWTVerifier(allowedAlgorithms: [.es256], rules: ClaimRules(issuers: nil, audiences: nil))
        #expect(throws: JOSEError.malformedJSON) { try verifier.verify(token, key: key.verificationKey) }
        let header = Base64URL.encode(Array(#"{"alg":"ES256","alg":"none"}"#.utf8))
        #expect(throws: JOSEError.malformedJSON) { try CompactJWS("\(header).e30.AAAA") }
        let numericAlg = Base64URL.encode(Array(#"{"alg":256}"#.utf8))
        #expect(throws: JOSEError.malformedJSON) { try CompactJWS("\(numericAlg).e30.AAAA") }
    }
}
