/// Reading server-rendered forms the way a browser would, without one (tests drive pages by HTTP).
public enum HTMLForm {
    /// Every `<input type="hidden" name=… value=…>` in order, unescaped.
    public static func hiddenFields(_ html: String) -> [(String, String)] {
        var fields: [(String, String)] = []
        var rest = html[...]
        while let range = rest.range(of: #"<input type="hidden" name=""#) {
            rest = rest[range.upperBound...]
            guard let nameEnd = rest.firstIndex(of: "\"") else { break }
            let name = String(rest[..<nameEnd])
            rest = rest[nameEnd...]
            guard let valueStart = rest.range(of: #"value=""#), let valueEnd = rest[valueStart.upperBound...].firstIndex(of: "\"") else { break }
            fields.append((unescape(name), unescape(String(rest[valueStart.upperBound..<valueEnd]))))
            rest = rest[valueEnd...]
        }
        return fields
    }

    /// The first POST form's `action`.
    public static func formAction(_ html: String) -> String? {
        guard let range = html.range(of: #"<form method="post" action=""#) else { return nil }
        let rest = html[range.upperBound...]
        return rest.firstIndex(of: "\"").map { unescape(String(rest[..<$0])) }
    }

    public static func unescape(_ text: String) -> String {
        text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}
