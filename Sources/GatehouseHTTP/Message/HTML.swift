/// A piece of HTML. Interpolating a `String` into it escapes the string; interpolating `HTML` passes it
/// through unchanged; the literal parts are markup. So a page built from `HTML` values cannot forget to
/// escape what a user, a client or a provider sent — there is no way to splice a `String` in raw except
/// ``init(unescaped:)``, which says so.
///
///     let name = "<script>"
///     let page: HTML = "<p>Hello, \(name)</p>"   // <p>Hello, &lt;script&gt;</p>
public struct HTML: Sendable, Equatable, CustomStringConvertible, ExpressibleByStringInterpolation {
    /// The markup.
    public private(set) var text: String

    /// Trusted markup built elsewhere (a script, an inline document): the only way in without escaping.
    public init(unescaped text: String) { self.text = text }

    /// A literal is markup the programmer wrote.
    public init(stringLiteral literal: String) { text = literal }

    public init(stringInterpolation: StringInterpolation) { text = stringInterpolation.text }

    public static let empty = HTML(unescaped: "")

    public var description: String { text }
    public var isEmpty: Bool { text.isEmpty }

    /// Whether `value` holds a character ``HTMLEscaping`` replaces (`& < > " '`, all ASCII, so a byte
    /// test is exact: no byte of a multi-byte UTF-8 sequence is below 0x80).
    static func needsEscaping(_ value: String) -> Bool {
        func special(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: "&") || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">")
                || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'")
        }
        if let found = value.utf8.withContiguousStorageIfAvailable({ $0.contains(where: special) }) { return found }
        return value.utf8.contains(where: special)
    }

    public static func + (lhs: HTML, rhs: HTML) -> HTML { HTML(unescaped: lhs.text + rhs.text) }
    public static func += (lhs: inout HTML, rhs: HTML) { lhs.text += rhs.text }

    public struct StringInterpolation: StringInterpolationProtocol {
        var text = ""

        public init(literalCapacity: Int, interpolationCount: Int) { text.reserveCapacity(literalCapacity + 16 * interpolationCount) }

        public mutating func appendLiteral(_ literal: String) { text += literal }
        /// Text: escaped for content and attribute values.
        public mutating func appendInterpolation(_ value: String) {
            // Most interpolated text (tokens, ids, dates, addresses) has nothing to escape: append it as it is
            // instead of rebuilding it scalar by scalar (a twentieth of the account page's CPU).
            if HTML.needsEscaping(value) { text += HTMLEscaping.escape(value) } else { text += value }
        }
        public mutating func appendInterpolation(_ value: Substring) { appendInterpolation(String(value)) }
        /// Markup: passed through.
        public mutating func appendInterpolation(_ value: HTML) { text += value.text }
        /// Several pieces of markup, one after the other.
        public mutating func appendInterpolation(_ values: [HTML]) { for value in values { text += value.text } }
        public mutating func appendInterpolation(_ value: Int) { text += String(value) }
    }
}

extension Array where Element == HTML {
    /// The pieces joined by `separator` (markup).
    public func joined(separator: HTML = .empty) -> HTML {
        HTML(unescaped: map(\.text).joined(separator: separator.text))
    }
}

extension Response {
    /// A `text/html` page.
    public static func html(_ html: HTML, status: HTTPStatus = .ok) -> Response { .html(html.text, status: status) }
}
