import Foundation
import GatehouseStore
import Testing

/// `StoredStringList` skips Foundation's JSON coders for plain ASCII lists: the bytes it
/// writes and the lists it reads must be exactly the coders' for every input.
@Suite("StoredStringList")
struct StoredStringListTests {
    static let lists: [[String]] = [
        [], ["pwd"], ["pwd", "otp"], [""], ["a b", "https://x.example/cb?q=1&r=2"], ["quote\"d"], ["back\\slash"],
        ["tab\there"], ["new\nline"], ["é", "日本"], ["\u{7F}"], ["[", "]", ","], ["\"", ""],
    ]

    @Test(arguments: lists)
    func encodesExactlyAsJSONEncoderAndRoundTrips(_ list: [String]) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        let foundation = String(decoding: try encoder.encode(list), as: UTF8.self)
        #expect(StoredStringList.encode(list) == foundation)
        #expect(try StoredStringList.decode(StoredStringList.encode(list), column: "c", backend: "b") == list)
    }

    @Test(arguments: [#"[ "pwd" ]"#, #"["a","b"]"#, #"["a\/b"]"#, #"["\u0041"]"#, "[\n\"x\"\n]", #"["a", "b"]"#])
    func readsWhatJSONDecoderReads(_ text: String) throws {
        #expect(try StoredStringList.decode(text, column: "c", backend: "b") == JSONDecoder().decode([String].self, from: Data(text.utf8)))
    }

    @Test(arguments: ["", "[", "]", #"["a""#, #"["a"]x"#, #"["a" "b"]"#, "[1]", #"{"a":1}"#, #"["a"],"#, "null"])
    func rejectsWhatIsNotAnArrayOfStrings(_ text: String) {
        #expect(throws: StoreError.self) { try StoredStringList.decode(text, column: "c", backend: "b") }
    }
}
