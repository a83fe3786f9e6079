import Foundation
import GatehouseStore

/// SQLite's account-page applications list (the same answer as ``ActiveGrantsQuery``), one small
/// statement per client instead of one recursive statement. `ActiveGrantsQuery` needs three ephemeral
/// tables on SQLite 3.40 (the recursion's queue and two ORDER BY b-trees); each is a temporary pager
/// opened, zeroed and closed per page view, which made it the costliest statement of the page (~165,000
/// instructions for a user with one application, against ~80,000 here). Every statement below walks an
/// index in order and opens no temporary table. PostgreSQL keeps the single statement: there each
/// statement is a round trip.
enum SQLiteActiveGrantsWalk {
    /// Bindings: ?1 user id, ?2 now, ?3 the previous client id ('' first). One row: the next client id
    /// (NULL when there is none) and, when that client holds a live grant, its oldest live grant's family and creation time.
    static let nextClient = """
        SELECT c.id, (SELECT t.family_id \(oldestLiveGrant)), (SELECT t.created_at \(oldestLiveGrant))
        FROM (SELECT MIN(client_id) AS id FROM refresh_tokens WHERE user_id = ?1 AND client_id > ?3) c
        """

    /// Bindings: ?1 family id, ?2 now. The live tokens of a family (one, unless a rotation's grace
    /// window left its predecessor): the oldest one's scope is shown, as in ``ActiveGrantsQuery``.
    static let liveInFamily = "SELECT l.scope, l.created_at FROM refresh_tokens l WHERE l.family_id = ?1 AND \(live("l"))"

    private static let oldestLiveGrant = """
        FROM refresh_tokens t WHERE t.user_id = ?1 AND t.client_id = c.id
        AND EXISTS (SELECT 1 FROM refresh_tokens l WHERE l.family_id = t.family_id AND \(live("l")))
        ORDER BY t.created_at LIMIT 1
        """

    private static func live(_ alias: String) -> String {
        "\(alias).revoked_at IS NULL AND \(alias).rotated_at IS NULL AND \(alias).expires_at > ?2"
    }

    /// The user's live grants, by client id, at most ``ActiveGrantsQuery/limit`` clients.
    static func read(userId: String, now: Date, _ db: some SQLConnection) throws -> [ActiveGrant] {
        var grants: [ActiveGrant] = []
        var previous = ""
        // Clients are rows of oauth_clients (a foreign key), so the walk ends; clients without a live grant are stepped over.
        while grants.count < ActiveGrantsQuery.limit {
            let next = try db.queryOne(nextClient, [userId, now, previous]) { row in
                (client: row.optionalText(0), family: row.optionalText(1), since: row.optionalDate(2))
            }
            guard let next, let client = next.client else { break }
            previous = client
            guard let family = next.family, let since = next.since else { continue }
            let live = try db.query(liveInFamily, [family, now]) { row in (scope: row.text(0), created: row.date(1)) }
            // The same read transaction as the EXISTS above (one snapshot), so the family still has a live token.
            guard let oldest = live.min(by: { $0.created < $1.created }) else { continue }
            grants.append(ActiveGrant(clientId: client, scope: oldest.scope, since: since))
        }
        return grants
    }
}
