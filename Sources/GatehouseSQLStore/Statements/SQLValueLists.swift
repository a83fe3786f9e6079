/// Lists of values bound into one statement (`IN (…)`, a multi-row `VALUES`) in a few fixed sizes.
///
/// The backends prepare and cache a statement per SQL text, so a list written at every length it happens to
/// have would prepare a new statement each time: lists are written in powers of two instead (at most
/// log₂(limit) texts per statement).
enum SQLValueLists {
    /// Splits `count` items into runs whose lengths are powers of two, largest first, none above `limit`
    /// (a power of two itself): a multi-row INSERT of `count` rows as a few statements of fixed shapes.
    static func runs(_ count: Int, limit: Int) -> [Int] {
        var left = count, sizes: [Int] = []
        while left > 0 {
            var size = limit
            while size > left { size /= 2 }
            sizes.append(size); left -= size
        }
        return sizes
    }

    /// `count` rounded up to a power of two: an `IN` list padded to it by repeating its last value,
    /// which selects nothing more.
    static func padded(_ count: Int) -> Int {
        var size = 1
        while size < count { size *= 2 }
        return size
    }

    /// `(?, ?), (?, ?)`: `rows` groups of `width` placeholders.
    static func placeholders(rows: Int, width: Int) -> String {
        let group = "(" + Array(repeating: "?", count: width).joined(separator: ", ") + ")"
        return Array(repeating: group, count: rows).joined(separator: ", ")
    }

    /// `?, ?, ?`: a flat list of `count` placeholders.
    static func list(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }

    /// Runs `sql(placeholders)` over `values` in chunks of at most `limit`, each padded to a power of two,
    /// and gathers the mapped rows (`SELECT … WHERE key IN (\(placeholders))`); `leading` parameters come
    /// before the list's.
    static func select<Connection: SQLConnection, T>(
        _ db: Connection, _ values: [String], leading: [String] = [], limit: Int = 512, sql: (String) -> String,
        _ map: (Connection.Row) throws -> T
    ) throws -> [T] {
        var found: [T] = []
        var start = 0
        while start < values.count {
            let chunk = values[start..<min(start + limit, values.count)]
            var parameters: [any SQLBindable] = leading + Array(chunk)
            let size = padded(chunk.count)
            while parameters.count < leading.count + size { parameters.append(chunk.last!) }
            found += try db.query(sql(list(size)), parameters, map)
            start += limit
        }
        return found
    }
}
