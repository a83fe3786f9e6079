import Foundation
import GatehouseSQLite
import GatehouseStore
import Testing

@Suite("SQLite URLs")
struct SQLiteLocationTests {
    @Test(arguments: [
        ("sqlite://./var/gatehouse.sqlite", SQLiteLocation.file(path: "./var/gatehouse.sqlite")),
        ("sqlite:///srv/gh/db.sqlite", .file(path: "/srv/gh/db.sqlite")),
        ("sqlite:var/db.sqlite", .file(path: "var/db.sqlite")),
        ("sqlite::memory:", .memory),
        ("SQLITE://./a%20b.sqlite", .file(path: "./a b.sqlite")),
    ])
    func parses(_ url: String, _ expected: SQLiteLocation) throws {
        #expect(try SQLiteLocation(url: url) == expected)
    }

    @Test(arguments: ["postgres://localhost/db", "sqlite://", "sqlite:///", "sqlite://./var/", ""])
    func rejects(_ url: String) async {
        await expectStoreError(.invalidConfiguration) { _ = try SQLiteLocation(url: url) }
    }

    @Test func opensRelativePathAndCreatesParentFolder() async throws {
        let folder = TemporaryFolder.make()
        defer { folder.remove() }
        let path = folder.appending("nested/deeper/gatehouse.sqlite")
        let db = try await SQLiteDatabase.open(url: "sqlite://" + path)
        try await db.ping()
        await db.close()
        #expect(FileManager.default.fileExists(atPath: path))
    }

    @Test func memoryDatabaseWorks() async throws {
        let db = try await SQLiteDatabase.open(url: "sqlite::memory:")
        _ = try await db.migrate()
        try await db.signingKeys.insert(SigningKeyStoreTests.key("m"))
        #expect(try await db.signingKeys.list().count == 1)
        await db.close()
    }
}
