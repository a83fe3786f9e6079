/// A page or mail template an operator writes (docs/templates.md): text with `{{name}}` values,
/// `{{#if name}}…{{else}}…{{/if}}`, `{{#each name}}…{{/each}}` and `{{! comments }}` — nothing more, so a
/// template can show what the page hands it but never compute or reach anything else.
///
/// Rendered as ``HTML``, a `.text` value is escaped and an `.html` value (markup the page built) passes
/// through; rendered as plain text (mails), nothing is escaped.
public struct Template: Sendable, Equatable {
    indirect enum Node: Sendable, Equatable {
        case literal(String)
        case value(String)
        case conditional(String, then: [Node], otherwise: [Node])
        case loop(String, body: [Node])
    }

    let nodes: [Node]
    /// The file the template came from, for error messages.
    public let file: String

    /// A template that does not parse: the file and the line (1-based) of the tag at fault.
    public struct ParseError: Error, Equatable, CustomStringConvertible {
        public let file: String
        public let line: Int
        public let reason: String
        public var description: String { "\(file):\(line): \(reason)" }

        public init(file: String, line: Int, reason: String) { self.file = file; self.line = line; self.reason = reason }
    }

    /// Templates are small: a longer file is refused before it is parsed.
    public static let maximumBytes = 256 * 1024
    /// Blocks nest at most this deep.
    public static let maximumDepth = 16

    public init(parsing source: String, file: String) throws(ParseError) {
        self.file = file
        guard source.utf8.count <= Self.maximumBytes else {
            throw ParseError(file: file, line: 1, reason: "longer than \(Self.maximumBytes) bytes")
        }
        var parser = TemplateParser(source: Array(source.utf8), file: file)
        nodes = try parser.parseAll()
    }

    /// What a template is handed: text, markup, a flag or a list of items with their own values.
    public enum Value: Sendable, Equatable {
        case text(String)
        case html(HTML)
        case flag(Bool)
        case list([[String: Value]])

        var isTruthy: Bool {
            switch self {
            case .text(let text): !text.isEmpty
            case .html(let html): !html.isEmpty
            case .flag(let flag): flag
            case .list(let items): !items.isEmpty
            }
        }
    }

    /// The names the template uses (values, conditions and loops), for checking them against the page's list.
    public var names: Set<String> {
        func collect(_ nodes: [Node], into names: inout Set<String>) {
            for node in nodes {
                switch node {
                case .literal: break
                case .value(let name): names.insert(name)
                case .conditional(let name, let then, let otherwise):
                    names.insert(name); collect(then, into: &names); collect(otherwise, into: &names)
                case .loop(let name, let body): names.insert(name); collect(body, into: &names)
                }
            }
        }
        var names = Set<String>()
        collect(nodes, into: &names)
        return names
    }

    /// The template as markup: literal text is the operator's markup, `.text` values are escaped.
    public func render(_ values: [String: Value]) -> HTML {
        var out = ""
        render(nodes, [values], escaping: true, into: &out)
        return HTML(unescaped: out)
    }

    /// The template as plain text (a mail body): nothing is escaped.
    public func renderText(_ values: [String: Value]) -> String {
        var out = ""
        render(nodes, [values], escaping: false, into: &out)
        return out
    }

    /// `scopes`: the innermost loop item first, the page's values last; a name is looked up from the inside out.
    private func render(_ nodes: [Node], _ scopes: [[String: Value]], escaping: Bool, into out: inout String) {
        func lookup(_ name: String) -> Value? {
            for scope in scopes.reversed() { if let value = scope[name] { return value } }
            return nil
        }
        for node in nodes {
            switch node {
            case .literal(let text): out += text
            case .value(let name):
                switch lookup(name) {
                case .text(let text): out += escaping ? HTMLEscaping.escape(text) : text
                case .html(let html): out += html.text
                case .flag, .list, nil: break
                }
            case .conditional(let name, let then, let otherwise):
                render(lookup(name)?.isTruthy == true ? then : otherwise, scopes, escaping: escaping, into: &out)
            case .loop(let name, let body):
                guard case .list(let items) = lookup(name) else { continue }
                for item in items { render(body, scopes + [item], escaping: escaping, into: &out) }
            }
        }
    }
}
