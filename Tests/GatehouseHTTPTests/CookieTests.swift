import GatehouseHTTP
import Testing

@Suite struct CookieTests {
    @Test func parsesPairsAndTrimsWhitespace() {
        let cookies = RequestCookies(headerValues: ["a=1; b=two;c=3 "])
        #expect(cookies["a"] == "1")
        #expect(cookies["b"] == "two")
        #expect(cookies["c"] == "3")
        #expect(cookies.count == 3)
    }

    @Test func stripsQuotesFromQuotedValues() {
        let cookies = RequestCookies(headerValues: ["sid=\"abc\""])
        #expect(cookies["sid"] == "abc")
    }

    @Test func keepsDuplicatesInOrderFirstWins() {
        let cookies = RequestCookies(headerValues: ["sid=path-specific; sid=root", "sid=third"])
        #expect(cookies["sid"] == "path-specific")
        #expect(cookies.all("sid") == ["path-specific", "root", "third"])
    }

    @Test func rejectsInvalidCharacters() {
        // Space, comma and backslash are not cookie-octets; "bad name" is not a token; no '=' is no pair.
        let cookies = RequestCookies(headerValues: ["a=b c; d=e,f; g=h\\i; bad name=1; noequals; ok=fine; =empty"])
        #expect(cookies["a"] == nil)
        #expect(cookies["d"] == nil)
        #expect(cookies["g"] == nil)
        #expect(cookies["bad name"] == nil)
        #expect(cookies["noequals"] == nil)
        #expect(cookies["ok"] == "fine")
        #expect(cookies.count == 1)
    }

    @Test func allowsEmptyValue() {
        #expect(RequestCookies(headerValues: ["a="])["a"] == "")
    }

    @Test func serialisesEveryAttribute() throws {
        let cookie = try SetCookie(name: "sid", value: "abc123", maxAge: 3600, path: "/app", domain: "example.com",
                                   secure: true, httpOnly: true, sameSite: .strict)
        #expect(cookie.headerValue == "sid=abc123; Max-Age=3600; Path=/app; Domain=example.com; Secure; HttpOnly; SameSite=Strict")
        let plain = try SetCookie(name: "pref", value: "x", path: nil, secure: false, httpOnly: false, sameSite: nil)
        #expect(plain.headerValue == "pref=x")
    }

    @Test func refusesInjectionAndPrefixViolations() {
        #expect(throws: SetCookie.Invalid.value) { try SetCookie(name: "a", value: "x; Domain=evil.example", secure: true) }
        #expect(throws: SetCookie.Invalid.name) { try SetCookie(name: "a b", value: "x", secure: true) }
        #expect(throws: SetCookie.Invalid.attribute) { try SetCookie(name: "a", value: "x", path: "/;Secure", secure: true) }
        #expect(throws: SetCookie.Invalid.hostPrefixRules) { try SetCookie(name: "__Host-sid", value: "x", secure: false) }
        #expect(throws: SetCookie.Invalid.hostPrefixRules) {
            try SetCookie(name: "__Host-sid", value: "x", domain: "example.com", secure: true)
        }
        #expect(throws: SetCookie.Invalid.securePrefixRules) { try SetCookie(name: "__Secure-x", value: "1", secure: false) }
        #expect(throws: SetCookie.Invalid.sameSiteNoneNeedsSecure) {
            try SetCookie(name: "x", value: "1", secure: false, sameSite: SetCookie.SameSite.none)
        }
    }

    @Test func expiringCookieHasMaxAgeZero() throws {
        let cookie = try SetCookie.expiring("__Host-sid", secure: true)
        #expect(cookie.headerValue.hasPrefix("__Host-sid=; Max-Age=0; Path=/; Secure"))
    }

    @Test func requestExposesCookies() throws {
        let request = try Request(method: .get, target: "/", headers: ["Cookie": "a=1", "cookie": "b=2"])
        #expect(request.cookies["a"] == "1")
        #expect(request.cookies["b"] == "2")
    }
}

@Suite struct CookieGrammarTests {
    /// Every printable byte in a cookie name: refused exactly when RFC 7230 §3.2.6 lists it as a separator.
    @Test func namesRefuseExactlyTheSeparators() {
        let separators = Set("()<>@,;:\\\"/[]?={}".utf8)
        for byte in UInt8(0x21)...UInt8(0x7E) where byte != UInt8(ascii: ";") && byte != UInt8(ascii: "=") {
            let name = "a" + String(UnicodeScalar(byte)) + "b"
            let cookies = RequestCookies(headerValues: ["\(name)=1"])
            #expect((cookies[name] == "1") == !separators.contains(byte), "byte \(byte)")
        }
    }

    @Test func emptyPartsBetweenSemicolonsAreSkipped() {
        let cookies = RequestCookies(headerValues: [";; a=1;;b=2; ;", "", "c=3"])
        #expect(cookies.pairs.map(\.name) == ["a", "b", "c"])
        #expect(cookies["b"] == "2")
    }
}
