import GatehouseHTTP
import Testing

@Suite struct FormDecodingTests {
    @Test func decodesPercentEscapesAndPlus() throws {
        let form = try URLEncodedForm(parsing: "name=Ada+Lovelace&email=ada%40example.com&emoji=%F0%9F%94%91")
        #expect(form["name"] == "Ada Lovelace")
        #expect(form["email"] == "ada@example.com")
        #expect(form["emoji"] == "🔑")
    }

    @Test func keepsRepeatedKeysAndReportsThem() throws {
        let form = try URLEncodedForm(parsing: "scope=a&scope=b&x=1")
        #expect(form["scope"] == "a")
        #expect(form.all("scope") == ["a", "b"])
        #expect(throws: RepeatedParameter(name: "scope")) { try form.single("scope") }
        #expect(try form.single("x") == "1")
        #expect(try form.single("missing") == nil)
    }

    @Test func emptySegmentsAndBareKeys() throws {
        let form = try URLEncodedForm(parsing: "&&a&b=&c=3&")
        #expect(form.pairs.map(\.key) == ["a", "b", "c"])
        #expect(form["a"] == "")
        #expect(form["b"] == "")
    }

    @Test func rejectsBadEscapes() {
        #expect(throws: PercentDecoding.Failure.invalidEscape) { try URLEncodedForm(parsing: "a=%G1") }
        #expect(throws: PercentDecoding.Failure.invalidEscape) { try URLEncodedForm(parsing: "a=%4") }
        #expect(throws: PercentDecoding.Failure.invalidEscape) { try URLEncodedForm(parsing: "a=%") }
    }

    @Test func rejectsInvalidUTF8() {
        #expect(throws: PercentDecoding.Failure.invalidUTF8) { try URLEncodedForm(parsing: "a=%FF%FE") }
        #expect(throws: PercentDecoding.Failure.invalidUTF8) { try URLEncodedForm(parsing: [0x61, 0x3D, 0xC3]) }
    }

    @Test func roundTripsThroughEncoding() throws {
        let form = URLEncodedForm(pairs: [("redirect_uri", "https://app.example/cb?x=1&y=2"), ("note", "a b+c")])
        #expect(form.encoded == "redirect_uri=https%3A%2F%2Fapp.example%2Fcb%3Fx%3D1%26y%3D2&note=a%20b%2Bc")
        #expect(try URLEncodedForm(parsing: form.encoded) == form)
    }

    @Test func queryIsParsedFromTheTarget() throws {
        let request = try Request(method: .get, target: "/cb?code=abc&state=x%2By")
        #expect(request.path == "/cb")
        #expect(request.query["code"] == "abc")
        #expect(request.query["state"] == "x+y")
        #expect(request.rawQuery == "code=abc&state=x%2By")
    }

    @Test func invalidTargetsAre400() {
        #expect(throws: HTTPError.self) { try Request(method: .get, target: "/a?x=%ZZ") }
        #expect(throws: HTTPError.self) { try Request(method: .get, target: "/%FF") }
        #expect(throws: HTTPError.self) { try Request(method: .get, target: "/a%00b") }
        #expect(throws: HTTPError.self) { try Request(method: .get, target: "http://example.com/") }
    }

    @Test func bodyFormNeedsTheFormContentType() throws {
        let json = try Request(method: .post, target: "/", headers: ["Content-Type": "application/json"], body: Array("a=1".utf8))
        #expect(throws: HTTPError(.unsupportedMediaType, "Expected a form (application/x-www-form-urlencoded).")) { try json.form() }
        let form = try Request(method: .post, target: "/", headers: ["Content-Type": "application/x-www-form-urlencoded; charset=UTF-8"],
                               body: Array("a=1".utf8))
        #expect(try form.form()["a"] == "1")
        let bad = try Request(method: .post, target: "/", headers: ["Content-Type": "application/x-www-form-urlencoded"],
                              body: [0x61, 0x3D, 0xFF])
        #expect((try? bad.form()) == nil)
        do { _ = try bad.form() } catch { #expect(error.status == .badRequest) }
    }

    @Test func jsonBodies() throws {
        struct Payload: Decodable { let name: String }
        let good = try Request(method: .post, target: "/", headers: ["Content-Type": "application/json"], body: Array(#"{"name":"x"}"#.utf8))
        #expect(try good.json(Payload.self).name == "x")
        let malformed = try Request(method: .post, target: "/", headers: ["Content-Type": "application/json"], body: Array("{".utf8))
        do { _ = try malformed.json(Payload.self); Issue.record("expected failure") } catch { #expect(error.status == .badRequest) }
    }
}

@Suite struct MediaTypeTests {
    private func mediaType(_ value: String?) throws -> String? {
        var headers = HTTPHeaders()
        if let value { headers.add("Content-Type", value) }
        return try Request(method: .post, target: "/", headers: headers).mediaType
    }

    /// The bare lower-case value is returned as it is; anything else goes through the split, trim and lower-casing.
    @Test func withoutParametersCaseOrWhitespace() throws {
        #expect(try mediaType("application/x-www-form-urlencoded") == "application/x-www-form-urlencoded")
        #expect(try mediaType("Application/X-WWW-Form-URLEncoded; charset=UTF-8") == "application/x-www-form-urlencoded")
        #expect(try mediaType("  application/json\t; charset=utf-8") == "application/json")
        #expect(try mediaType("TEXT/ÉTÉ") == "text/été")
        #expect(try mediaType("") == nil)
        #expect(try mediaType(nil) == nil)
    }
}
