/// Parses ``Template`` source: literal text and `{{…}}` tags, blocks matched by name, lines counted for errors.
struct TemplateParser {
    let source: [UInt8]
    let file: String
    var index = 0
    var line = 1

    init(source: [UInt8], file: String) { self.source = source; self.file = file }

    mutating func parseAll() throws(Template.ParseError) -> [Template.Node] {
        let (nodes, end) = try parseBlock(depth: 0)
        if let end { throw error(end.line, "{{\(end.tag)}} without an open block") }
        return nodes
    }

    /// A closing or `else` tag that ended a block, and its line.
    struct BlockEnd { let tag: String; let line: Int }

    /// Nodes up to the end of input, a `{{/…}}` or an `{{else}}`.
    mutating func parseBlock(depth: Int) throws(Template.ParseError) -> ([Template.Node], BlockEnd?) {
        var nodes: [Template.Node] = []
        var literal: [UInt8] = []
        func flush() {
            if !literal.isEmpty { nodes.append(.literal(String(decoding: literal, as: UTF8.self))); literal = [] }
        }
        while index < source.count {
            guard source[index] == UInt8(ascii: "{"), index + 1 < source.count, source[index + 1] == UInt8(ascii: "{") else {
                if source[index] == UInt8(ascii: "\n") { line += 1 }
                literal.append(source[index]); index += 1
                continue
            }
            flush()
            let tagLine = line
            let tag = try readTag()
            if tag.hasPrefix("!") { continue }
            if tag.hasPrefix("/") || tag == "else" { return (nodes, BlockEnd(tag: tag, line: tagLine)) }
            if tag.hasPrefix("#") {
                guard depth < Template.maximumDepth else { throw error(tagLine, "blocks nest deeper than \(Template.maximumDepth)") }
                let parts = tag.dropFirst().split(separator: " ", omittingEmptySubsequences: true)
                guard parts.count == 2, ["if", "each"].contains(parts[0]) else {
                    throw error(tagLine, "unknown block {{\(tag)}} (only #if name and #each name)")
                }
                let kind = String(parts[0]), name = try self.name(String(parts[1]), tagLine)
                let (body, end) = try parseBlock(depth: depth + 1)
                var otherwise: [Template.Node] = []
                var closing = end
                if kind == "if", end?.tag == "else" {
                    let (rest, after) = try parseBlock(depth: depth + 1)
                    otherwise = rest; closing = after
                }
                guard let closing else { throw error(tagLine, "{{\(tag)}} is never closed with {{/\(kind)}}") }
                guard closing.tag == "/" + kind else {
                    throw error(closing.line, "{{\(closing.tag)}} closes {{\(tag)}} of line \(tagLine); expected {{/\(kind)}}")
                }
                nodes.append(kind == "if" ? .conditional(name, then: body, otherwise: otherwise) : .loop(name, body: body))
                continue
            }
            nodes.append(.value(try name(tag, tagLine)))
        }
        flush()
        return (nodes, nil)
    }

    /// The text between `{{` and `}}`, trimmed; `index` is at the opening braces.
    mutating func readTag() throws(Template.ParseError) -> String {
        let start = line
        index += 2
        var bytes: [UInt8] = []
        while index + 1 < source.count, !(source[index] == UInt8(ascii: "}") && source[index + 1] == UInt8(ascii: "}")) {
            if source[index] == UInt8(ascii: "\n") { line += 1 }
            if source[index] == UInt8(ascii: "{") && source[index + 1] == UInt8(ascii: "{") {
                throw error(line, "{{ inside a tag opened on line \(start)")
            }
            bytes.append(source[index]); index += 1
        }
        guard index + 1 < source.count else { throw error(start, "{{ is never closed with }}") }
        index += 2
        let tag = String(decoding: bytes, as: UTF8.self).trimmingTemplateSpaces
        guard !tag.isEmpty else { throw error(start, "an empty {{}}") }
        return tag
    }

    /// A value's name: lowercase letters, digits and `_`, starting with a letter.
    func name(_ text: String, _ line: Int) throws(Template.ParseError) -> String {
        guard let first = text.utf8.first, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first), text.utf8.count <= 64,
              text.utf8.allSatisfy({ (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                  || $0 == UInt8(ascii: "_") }) else {
            throw error(line, "`\(text)` is not a name (a-z, 0-9 and _, starting with a letter)")
        }
        return text
    }

    func error(_ line: Int, _ reason: String) -> Template.ParseError { .init(file: file, line: line, reason: reason) }
}

extension String {
    var trimmingTemplateSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let start = firstIndex(where: { !isSpace($0) }), let end = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[start...end])
    }
}
