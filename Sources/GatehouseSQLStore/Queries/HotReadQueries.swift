/// The one-statement SQL of `HotReadStore`, for both backends. Column lists come from the tables'
/// column enums, so each part of a joined row is decoded by its table's one decoder.
enum HotReadQueries {
    /// The session's columns first, then the user's from this index on.
    static let userOffset = Int32(SessionColumn.allCases.count)
    /// After the session and the user: one linked provider per row.
    static let providerColumn = userOffset + Int32(UserColumn.allCases.count)

    /// The session and its user. Bindings: id hash, now, now.
    static let sessionWithUser = """
        SELECT \(sessionAndUserColumns)
        FROM sessions s JOIN users u ON u.id = s.user_id
        WHERE \(validSession)
        """

    /// `sessionWithUser` and `providerColumn`: one linked provider per row (NULL, in a single row, when none).
    static let sessionWithUserAndProviders = """
        SELECT \(sessionAndUserColumns), e.provider
        FROM sessions s JOIN users u ON u.id = s.user_id LEFT JOIN external_identities e ON e.user_id = u.id
        WHERE \(validSession)
        """

    private static let sessionAndUserColumns = "\(SessionColumn.list(prefix: "s.")), \(UserColumn.list(prefix: "u."))"
    private static let validSession = "s.id_hash = ? AND s.idle_expires_at > ? AND s.absolute_expires_at > ?"

    /// The user's columns, all NULL when there is none, then `revokedColumn` (boolean) and
    /// `productUserIdColumn`, the user's id in the product, and `tokensNotBeforeColumn`, the instant before which the
    /// user's access tokens are void. Always one row.
    /// Bindings: user id, then two revocation keys (pass the `jti` twice when there is no family).
    /// (Two EXISTS probes, not `jti IN (?, ?)`: SQLite builds an ephemeral table for an IN list or an
    /// OR of equalities.)
    static let bearerSubject = """
        SELECT \(UserColumn.list(prefix: "u.")), k.revoked, u.external_id, u.tokens_not_before
        FROM (SELECT CAST(? AS TEXT) AS id,
                     (EXISTS (SELECT 1 FROM revoked_access_tokens r WHERE r.jti = ?)
                      OR EXISTS (SELECT 1 FROM revoked_access_tokens r WHERE r.jti = ?)) AS revoked) k
        LEFT JOIN users u ON u.id = k.id
        """
    static let revokedColumn = Int32(UserColumn.allCases.count)
    static let productUserIdColumn = revokedColumn + 1
    static let tokensNotBeforeColumn = revokedColumn + 2

    /// The bindings for `bearerSubject` after the user id: exactly two keys.
    static func revocationPair(_ keys: [String]) -> [String] {
        precondition(!keys.isEmpty && keys.count <= 2, "one or two revocation keys")
        return keys.count == 2 ? keys : [keys[0], keys[0]]
    }
}
