import Foundation
import GatehouseStore

/// The rotation of a family row: a refresh token that names its family and generation, stored as one row
/// per family whose `generation` moves on in place. One `UPDATE` of non-indexed columns per rotation, so a
/// rotation dirties the row's page only (no insert, no index entry), on both backends.
enum RefreshFamilySQL {
    /// Moves the family on from `generation` (the one presented), remembering when the one it replaces was
    /// issued. Conditional, so of two concurrent rotations exactly one matches (PostgreSQL re-checks the
    /// condition on the row it waited for under READ COMMITTED; SQLite has one writer).
    static let advance = """
        UPDATE refresh_tokens SET generation = generation + 1, prior_generation_at = generation_at, generation_at = ?
        WHERE hash = ? AND generation = ? AND revoked_at IS NULL AND expires_at > ?
        """

    static func advanceBindings(hash: TokenHash, generation: Int64, now: Date) -> [any SQLBindable] { [now, hash, generation, now] }

    /// `exchange`'s decision on a family row read inside the rotation's transaction (SQLite: the writer's;
    /// PostgreSQL: locked `FOR UPDATE`), for a token naming `presented`. The rules are the opaque tokens'
    /// (`RefreshTokenSQL.rotateLocked`), counted in generations.
    static func rotateLocked(_ found: RefreshToken, presented: Int64, replacement: RefreshToken, now: Date, graceWindow: TimeInterval,
                             _ db: some SQLConnection) throws -> RefreshRotation {
        guard let current = found.generation, found.revokedAt == nil, found.expiresAt > now, presented <= current else {
            return .invalid
        }
        guard replacement.hash == found.hash, replacement.familyId == found.familyId, replacement.generation == presented + 1 else {
            throw StoreError.invalidArgument(detail: "replacement refresh token is not the family's next generation")
        }
        if presented == current {
            guard try db.run(advance, advanceBindings(hash: found.hash, generation: current, now: now)) == 1 else {
                throw StoreError.invalidArgument(detail: "refresh family changed inside its rotation's transaction")
            }
            return .rotated(found)
        }
        // When the presented generation was replaced: exactly for the one before the current; for older ones
        // at the latest when the one before the current was issued (generations are issued in order).
        let replacedAt = presented == current - 1 ? found.generationAt : found.priorGenerationAt
        if let replacedAt, RefreshTokenSQL.withinGrace(rotatedAt: replacedAt, now: now, graceWindow: graceWindow) {
            // A retry of the one before the current gets the current one again (the caller derives it from the
            // presented token, so it is the same value); anything older would fork the family: refused.
            return presented == current - 1 ? .rotated(found) : .refused
        }
        // A replay of a generation replaced before the grace window: the family is compromised.
        try RefreshTokenSQL.revokeLive(familyId: found.familyId, now: now, db)
        var revoked = found
        revoked.revokedAt = now
        return .reused(revoked)
    }
}
