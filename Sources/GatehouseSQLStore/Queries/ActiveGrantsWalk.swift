import Foundation
import GatehouseStore

/// The account-page applications list (the same answer as ``ActiveGrantsQuery``) as one small
/// statement per client instead of one recursive statement: SQLite's `SQLActiveGrantsRead.walk`. `ActiveGrantsQuery` needs three ephemeral
/// tables on SQLite 3.40 (the recursion's queue and two ORDER BY b-trees); each is a temporary pager
/// opened, zeroed and closed per page view, which made it the costliest statement of the page (~165,000
/// instructions for a user with one application, against ~80,000 here). Every statement below walks an
/// index in order and opens no temporary table. PostgreSQL keeps the single statement: there each
/// statement is a round trip.
enum ActiveGrantsWalk {
    enum Parameter: Hashable, Sendable { case userId, now, previousClient, familyId }

    /// One row: the client id after `previousClient` ('' first; NULL when there is none) and, when that
    /// client holds a live grant, its oldest live grant's family and creation time.
    static let nextClient: SQLTemplate<Parameter> = """
        SELECT c.id, (SELECT t.family_id \(oldestLiveGrant)), (SELECT t.created_at \(oldestLiveGrant))
        FROM (SELECT MIN(client_id) AS id FROM refresh_tokens WHERE user_id = \(.userId) AND client_id > \(.previousClient)) c
        """

    /// The live tokens of a family (one, unless a rotation's grace
    /// window left its predecessor): the oldest one's scope is shown, as in ``ActiveGrantsQuery``.
    static let liveInFamily: SQLTemplate<Parameter> =
        "SELECT l.scope, l.created_at FROM refresh_tokens l WHERE l.family_id = \(.familyId) AND \(live("l"))"

    private static let oldestLiveGrant: SQLTemplate<Parameter> = """
        FROM refresh_tokens t WHERE t.user_id = \(.userId) AND t.client_id = c.id
        AND EXISTS (SELECT 1 FROM refresh_tokens l WHERE l.family_id = t.family_id AND \(live("l")))
        ORDER BY t.created_at LIMIT 1
        """

    private static func live(_ alias: String) -> SQLTemplate<Parameter> {
        "\(sql: alias).revoked_at IS NULL AND \(sql: alias).rotated_at IS NULL AND \(sql: alias).expires_at > \(.now)"
    }

    /// The user's live grants, by client id, at most ``ActiveGrantsQuery/limit`` clients.
    static func read(userId: String, now: Date, _ db: some SQLConnection) throws -> [ActiveGrant] {
        var grants: [ActiveGrant] = []
        var previous = ""
        // Clients are rows of oauth_clients (a foreign key), so the walk ends; clients without a live grant are stepped over.
        while grants.count < ActiveGrantsQuery.limit {
            let after = previous
            let next = try db.queryOne(nextClient.sql, nextClient.bindings { parameter in
                switch parameter {
                case .userId: userId
                case .now: now
                case .previousClient, .familyId: after
                }
            }) { row in
                (client: row.optionalText(0), family: row.optionalText(1), since: row.optionalDate(2))
            }
            guard let next, let client = next.client else { break }
            previous = client
            guard let family = next.family, let since = next.since else { continue }
            let live = try db.query(liveInFamily.sql, liveInFamily.bindings { $0 == .now ? now as any SQLBindable : family }) { row in (scope: row.text(0), created: row.date(1)) }
            // The same read transaction as the EXISTS above (one snapshot), so the family still has a live token.
            guard let oldest = live.min(by: { $0.created < $1.created }) else { continue }
            grants.append(ActiveGrant(clientId: client, scope: oldest.scope, since: since))
        }
        return grants
    }
}
