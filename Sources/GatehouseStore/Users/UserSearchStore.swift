import Foundation

/// Finding accounts for administrators (the admin API's user list).
public protocol UserSearchStore: Sendable {
    /// Users whose email contains `query` (case-insensitive; nil or empty: every user), in creation
    /// order, `limit` (1…1000) at a time, with the same cursor format as `UserStore.list`.
    /// A malformed cursor throws `StoreError.invalidArgument`.
    func search(emailContaining query: String?, after cursor: String?, limit: Int) async throws -> Page<User>
}

/// Keyset position in a users listing: `<created_at ms>.<id>`, shared by every backend.
public struct UserListCursor: Sendable, Equatable {
    public let createdAtMilliseconds: Int64
    public let id: String

    public init(createdAtMilliseconds: Int64, id: String) { self.createdAtMilliseconds = createdAtMilliseconds; self.id = id }

    public init(_ encoded: String) throws {
        guard let dot = encoded.firstIndex(of: "."), let ms = Int64(encoded[..<dot]), ms >= 0,
              !encoded[encoded.index(after: dot)...].isEmpty, encoded.utf8.count <= 300 else {
            throw StoreError.invalidArgument(detail: "malformed user cursor")
        }
        createdAtMilliseconds = ms
        id = String(encoded[encoded.index(after: dot)...])
    }

    public var encoded: String { "\(createdAtMilliseconds).\(id)" }
}

extension String {
    /// `query` escaped for a `LIKE … ESCAPE '\'` pattern matching it anywhere.
    public var likeContainsPattern: String {
        var escaped = ""
        for character in self.lowercased() {
            if character == "%" || character == "_" || character == "\\" { escaped.append("\\") }
            escaped.append(character)
        }
        return "%" + escaped + "%"
    }
}
