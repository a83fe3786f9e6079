import Foundation
import GatehouseSQLite
import GatehouseStore
import Testing

/// The SQLite writer commits concurrent writes together (one transaction, a savepoint each): a write
/// that fails halfway leaves nothing behind and does not take its neighbours down with it.
@Suite("SQLite group commit")
struct SQLiteGroupCommitTests {
    @Test func aFailingWriteInABatchIsRolledBackAloneAndTheOthersCommit() async throws {
        let folder = TemporaryFolder.make()
        defer { folder.remove() }
        let url = "sqlite://" + folder.appending("group.sqlite")
        let db = try await SQLiteDatabase.open(url: url)
        _ = try await db.migrate()
        try await createOAuthParties(db)
        for round in 0..<3 {
            let count = 60
            for index in 0..<count {
                try await db.refreshTokens.create(.fixture("gc\(round)-\(index)", family: "gf\(round)-\(index)"))
                // Every fifth rotation's successor already exists: its INSERT fails after its UPDATE ran.
                if index % 5 == 0 { try await db.refreshTokens.create(.fixture("taken\(round)-\(index)", family: "gf\(round)-\(index)")) }
            }
            let outcomes = await withTaskGroup(of: (Int, Result<RefreshRotation, any Error>).self) { group in
                for index in 0..<count {
                    group.addTask {
                        let successor = index % 5 == 0 ? "taken\(round)-\(index)" : "next\(round)-\(index)"
                        let result = await Result(catching: {
                            try await db.refreshTokens.rotate(hash: testHash("gc\(round)-\(index)"),
                                                              replacement: .fixture(successor, family: "gf\(round)-\(index)", created: 1),
                                                              now: TestTime.at(1), graceWindow: 0)
                        })
                        return (index, result)
                    }
                }
                return await group.reduce(into: [Int: Result<RefreshRotation, any Error>]()) { $0[$1.0] = $1.1 }
            }
            for index in 0..<count {
                let presented = try await db.refreshTokens.find(hash: testHash("gc\(round)-\(index)"))
                if index % 5 == 0 {
                    guard case .failure(let error as StoreError) = outcomes[index] else {
                        Issue.record("round \(round) #\(index): expected a conflict, got \(String(describing: outcomes[index]))")
                        continue
                    }
                    #expect(error.kind == .conflict)
                    #expect(presented?.rotatedAt == nil, "the failed write's UPDATE was rolled back with it")
                } else {
                    guard case .success(.rotated) = outcomes[index] else {
                        Issue.record("round \(round) #\(index): expected a rotation, got \(String(describing: outcomes[index]))")
                        continue
                    }
                    #expect(presented?.rotatedAt == TestTime.at(1))
                    #expect(try await db.refreshTokens.find(hash: testHash("next\(round)-\(index)")) != nil)
                }
            }
        }
        await db.close()
        // Everything acknowledged is in the file.
        let reopened = try await SQLiteDatabase.open(url: url)
        #expect(try await reopened.refreshTokens.find(hash: testHash("next2-59")) != nil)
        #expect(try await reopened.refreshTokens.find(hash: testHash("gc2-55"))?.rotatedAt == nil)
        await reopened.close()
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
