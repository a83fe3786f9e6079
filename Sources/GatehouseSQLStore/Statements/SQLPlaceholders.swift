/// Placeholder rewriting for backends that number their parameters.
public enum SQLPlaceholders {
    /// `?` → `$1`, `$2`, … in order of appearance, leaving `?` inside string literals, quoted
    /// identifiers and comments alone. SQL without a bare `?` comes back unchanged (so
    /// statements already written with `$n`, such as the migrator's, keep working).
    public static func numbered(_ sql: String) -> String {
        guard sql.utf8.contains(UInt8(ascii: "?")) else { return sql }
        var output: [UInt8] = []
        output.reserveCapacity(sql.utf8.count + 16)
        var count = 0
        var quote: UInt8?          // inside '…' or "…"
        var lineComment = false    // inside -- … end of line
        var blockComment = false   // inside /* … */
        var previous: UInt8 = 0
        for byte in sql.utf8 {
            defer { previous = byte }
            if lineComment {
                if byte == UInt8(ascii: "\n") { lineComment = false }
            } else if blockComment {
                if previous == UInt8(ascii: "*") && byte == UInt8(ascii: "/") { blockComment = false }
            } else if let open = quote {
                // A doubled quote ('it''s') closes and reopens: still inside, as far as `?` goes.
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "'") || byte == UInt8(ascii: "\"") {
                quote = byte
            } else if previous == UInt8(ascii: "-") && byte == UInt8(ascii: "-") {
                lineComment = true
            } else if previous == UInt8(ascii: "/") && byte == UInt8(ascii: "*") {
                blockComment = true
            } else if byte == UInt8(ascii: "?") {
                count += 1
                output.append(UInt8(ascii: "$"))
                output.append(contentsOf: String(count).utf8)
                continue
            }
            output.append(byte)
        }
        return String(decoding: output, as: UTF8.self)
    }
}
