import Foundation
import GatehouseStore

/// An import written whole into a database that holds no accounts yet, in one transaction: every row
/// creates its account, so no row needs to read what another wrote, and the rows can go in the order
/// the B-trees want rather than the file's.
///
/// Batches into a million-account database wrote ~23 KB per row (every index page a batch changed,
/// once per commit and once per checkpoint) and spent half their time in the kernel. Here the
/// accounts go in id order and the identities in key order, so their tables and the id indexes fill
/// page after page; the other indexes of both tables are dropped first and built once, sorted, after
/// the rows (`SQLIndexRebuild`). Only the email index still takes its keys in file order.
struct UserImportBulkLoad {
    let rows: [ImportedUser]
    let now: Date

    /// The tables the load fills, whose secondary indexes it sets aside.
    static let tables = ["users", "external_identities"]

    /// Whether no two rows name the same email, product user id, new id or identity: then no row of the
    /// file matches another and each one creates its account. Otherwise the batches judge them in order.
    static func keysAreDistinct(_ rows: [ImportedUser]) -> Bool {
        var emails = Set<ExactText>(minimumCapacity: rows.count), ids = Set<ExactText>(minimumCapacity: rows.count)
        var externals = Set<ExactText>(), identities = Set<IdentityKey>(minimumCapacity: rows.count)
        for row in rows {
            guard emails.insert(ExactText(row.email)).inserted, ids.insert(ExactText(row.newId)).inserted else { return false }
            if let external = row.productUserId, !externals.insert(ExactText(external)).inserted { return false }
            for identity in row.identities where !identities.insert(IdentityKey(identity)).inserted { return false }
        }
        return true
    }

    /// Writes every row inside `db`'s transaction, or returns nil having written nothing when the database
    /// holds an account already. Outcomes come in the order the accounts were written (by id).
    func write<Connection: SQLConnection>(_ db: Connection, _ rebuild: SQLIndexRebuild) throws -> [ImportOutcome]? {
        guard try db.queryOne("SELECT 1 FROM users LIMIT 1", [], { _ in true }) == nil else { return nil }
        let indexes = try rebuild.setAside(Self.tables, db)
        let accounts = rows.sorted { $0.newId.utf8.lexicographicallyPrecedes($1.newId.utf8) }
        try UserImportBatchSQL.insert(accounts.count, UserImportBatchSQL.insertUsers, db) { run in
            accounts[run].flatMap { UserImportBatchSQL.userValues($0, now) }
        }
        let identities = accounts.flatMap { row in row.identities.map { (row.newId, $0) } }.sorted {
            $0.1.provider.utf8.elementsEqual($1.1.provider.utf8) ? $0.1.subject.utf8.lexicographicallyPrecedes($1.1.subject.utf8)
                : $0.1.provider.utf8.lexicographicallyPrecedes($1.1.provider.utf8)
        }
        try UserImportBatchSQL.insert(identities.count, UserImportBatchSQL.insertIdentities, db) { run in
            identities[run].flatMap { UserImportBatchSQL.identityValues($0.1, userId: $0.0, now) }
        }
        try rebuild.rebuild(indexes, db)
        return accounts.map { ImportOutcome(line: $0.line, userId: $0.newId, action: .created) }
    }
}
