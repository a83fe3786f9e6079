import Foundation
import GatehouseIdentity
import Testing

/// The import's fast paths (a byte-level JSON-lines reader, an ASCII email check) read what the general ones read.
@Suite struct ImportReadingTests {
    static func fields(_ line: String) -> [String: ImportValue]? {
        let (records, errors) = ImportFileReader.read(line, format: .jsonLines)
        return errors.isEmpty ? records.first?.fields : nil
    }

    @Test func jsonLinesValuesAsJSONMeansThem() {
        let line = #"  {"email":"a\u00e9\"b\\c\/d\n@x.test","n":-1.5e2,"z":0,"t":true,"f":false,"x":null,"#
            + #""identities":[{"provider":"apple","uid":17,"email":"\ud83d\ude00"},{}],"s":"caf\u0065\u0301"} "#
        #expect(Self.fields(line) == [
            "email": .string("a\u{e9}\"b\\c/d\n@x.test"), "n": .number(-150), "z": .number(0), "t": .bool(true), "f": .bool(false),
            "x": .null, "identities": .objects([["provider": .string("apple"), "uid": .number(17), "email": .string("\u{1F600}")], [:]]),
            "s": .string("cafe\u{301}"),
        ])
        #expect(Self.fields(#"{"e":"é unescaped ü","list":[]}"#) == ["e": .string("é unescaped ü"), "list": .objects([])])
        // Beyond a double's exact integers the number is Foundation's to read, and still a number.
        if case .number(let big)? = Self.fields(#"{"big":12345678901234567890}"#)?["big"] {
            #expect(abs(big - 1.2345678901234567e19) < 1e5)
        } else {
            Issue.record("a long integer is not read as a number")
        }
    }

    @Test func jsonLinesErrorsAndLineNumbersAreAsBefore() {
        let text = [
            #"{"email":"a@x.test"}"#,
            "",
            #"{"email":"b@x.test",}"#,                       // 3: trailing comma: Foundation's reader takes it, as it always did
            #"{"nested":{"a":1}}"#,                           // 4: an object value
            #"{"identities":[{"p":[1]}]}"#,                   // 5: a list inside an identity
            #"{"identities":[1]}"#,                           // 6: a list of numbers
            #"{"s":"\ud800"} x"#,                             // 7: trailing text
            "[1, 2]",                                         // 8: not an object
            "\u{A0}{\"email\":\"c@x.test\"}\u{A0}",           // 9: non-ASCII spaces around it: Foundation trims them
            "   \t ",                                         // 10: blank
            #"{"email":"d@x.test"} x"#,                       // 11: trailing text
            #"{"email":"e@x.test"}"#,                         // 12
        ].joined(separator: "\n") + "\n"
        let (records, errors) = ImportFileReader.read(text, format: .jsonLines)
        #expect(records.map(\.line) == [1, 3, 9, 12])
        #expect(records[1].fields == ["email": .string("b@x.test")])
        #expect(records[2].fields == ["email": .string("c@x.test")])
        #expect(errors == [
            ImportRowError(line: 4, message: "field nested has an unsupported value"),
            ImportRowError(line: 5, message: "field identities has an unsupported value"),
            ImportRowError(line: 6, message: "field identities has an unsupported value"),
            ImportRowError(line: 7, message: "not a JSON object"),
            ImportRowError(line: 8, message: "not a JSON object"),
            ImportRowError(line: 11, message: "not a JSON object"),
        ])
        // CR LF lines (a file written on Windows) are lines too, numbered as LF lines are; a lone CR is not a line end.
        let crlf = ImportFileReader.read("{\"email\":\"a@x.test\"}\r\n\r\n{\"email\":\"b@x.test\"}\r\n{\"x\":1} y\r\n"
                                         + "{\"email\":\"c\r@x.test\"}\r{\"email\":\"d@x.test\"}", format: .jsonLines)
        #expect(crlf.records.map(\.line) == [1, 3])
        #expect(crlf.records.map(\.fields) == [["email": .string("a@x.test")], ["email": .string("b@x.test")]])
        #expect(crlf.errors == [ImportRowError(line: 4, message: "not a JSON object"), ImportRowError(line: 5, message: "not a JSON object")])
    }

    @Test(arguments: [
        ("  Ada.Lovelace+tag@Example.COM\r\n", "ada.lovelace+tag@example.com"),
        ("a!#$%&'*/=?^_`{|}~-@x-y.example.test", "a!#$%&'*/=?^_`{|}~-@x-y.example.test"),
        ("u@xn--bcher-kva.xn--p1ai", "u@xn--bcher-kva.xn--p1ai"),
        ("USER@SUB.DOMAIN.ORG", "user@sub.domain.org"),
        (String(repeating: "a", count: 64) + "@x.test", String(repeating: "a", count: 64) + "@x.test"),
    ])
    func validAddressesNormalise(_ raw: String, _ expected: String) {
        #expect(EmailAddress(raw)?.value == expected)
    }

    @Test(arguments: [
        "", "   ", "plain", "a@b", "a@@b.test", "a@b@c.test", "@x.test", "a@", ".a@x.test", "a.@x.test", "a..b@x.test",
        "a b@x.test", "a@x..test", "a@-x.test", "a@x-.test", "a@x.t3st", "a@x.test.", "a\r\nb@x.test", "a@x\r\n.test",
        "\"q\"@x.test", "a@[127.0.0.1]", "a@x_y.test", String(repeating: "a", count: 65) + "@x.test",
        "a@" + String(repeating: "b", count: 64) + ".test", "a@" + String(repeating: "b.", count: 130) + "test",
        "é@x.test", "a@bücher.test",
    ])
    func invalidAddressesAreRefused(_ raw: String) {
        #expect(EmailAddress(raw) == nil)
    }
}
