import GatehouseHTTP
import Testing

/// The `HTML` value escapes every `String` it interpolates and passes `HTML` through.
@Suite struct HTMLTests {
    static let hostile = #"<script>alert("x")</script>' & "#

    @Test func stringsAreEscapedMarkupPassesThrough() {
        let name = Self.hostile
        let bold: HTML = "<b>\(name)</b>"
        #expect(bold.text == "<b>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; &amp; </b>")
        let page: HTML = "<p>\(bold)</p>"
        #expect(page.text == "<p>" + bold.text + "</p>", "HTML is not escaped twice")
        let attribute: HTML = #"<input value="\#(name)">"#
        #expect(!attribute.text.contains(#"""#) || attribute.text.hasPrefix(#"<input value=""#))
        #expect(attribute.text == #"<input value="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; &amp; ">"#)
    }

    @Test func substringsNumbersListsAndConcatenation() {
        let word = "a<b"[...]
        let items: [HTML] = ["<li>\(word)</li>", "<li>\(2)</li>"]
        let list: HTML = "<ul>\(items)</ul>"
        #expect(list.text == "<ul><li>a&lt;b</li><li>2</li></ul>")
        #expect(items.joined(separator: "\n").text == "<li>a&lt;b</li>\n<li>2</li>")
        var built: HTML = .empty
        built += "<i>\("<")</i>"
        #expect((built + "!").text == "<i>&lt;</i>!")
        #expect(HTML(unescaped: "<br>").text == "<br>", "the one raw way in says so")
    }

    /// Text with nothing to escape is appended as it is; the byte test must still catch each
    /// special character wherever it sits, in bridged and non-ASCII strings too.
    @Test(arguments: ["&", "<", ">", "\"", "'"])
    func eachSpecialCharacterIsEscapedAnywhereInTheText(_ special: String) {
        let escaped = HTMLEscaping.escape(special)
        #expect(escaped != special)
        for text in [special, "é\(special)", "\(special)日本", "token-\(special)-" + String(repeating: "x", count: 40)] {
            let html: HTML = "[\(text)]"
            #expect(html.text == "[" + HTMLEscaping.escape(text) + "]")
            if special != "&" { #expect(!html.text.contains(special), "no raw \(special) is left") }
        }
        let plain = "Zoë · 2026-12-01 13:40 UTC · 203.0.113.9 · 日本"
        let html: HTML = "<p>\(plain)</p>"
        #expect(html.text == "<p>" + plain + "</p>")
    }

    @Test func responseCarriesTheMarkup() {
        let response = Response.html("<p>\("&")</p>" as HTML)
        #expect(String(decoding: response.body, as: UTF8.self) == "<p>&amp;</p>")
        #expect(response.headers["Content-Type"] == "text/html; charset=utf-8")
    }
}
