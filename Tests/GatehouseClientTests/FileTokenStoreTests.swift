import Foundation
import GatehouseClient
import Testing

@Suite struct FileTokenStoreTests {
    private func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("gatehouse-client-\(UUID().uuidString)")
        return url
    }

    private func mode(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    @Test func createsOwnerOnlyFileAndRoundTrips() async throws {
        let directory = try temporaryDirectory().appendingPathComponent("nested")
        defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
        let store = FileTokenStore(url: directory.appendingPathComponent("tokens.json"))
        let tokens = TokenSet(accessToken: "at", expiresAt: Date(timeIntervalSince1970: 1_800_000_000), refreshToken: "rt", idToken: "id")

        // Even under a permissive umask the file must be 0600.
        let previous = umask(0)
        defer { umask(previous) }
        try store.save(tokens)
        #expect(try mode(store.url.path) == 0o600)
        #expect(try mode(directory.path) == 0o700)
        #expect(try store.load() == tokens)

        var status = stat()
        #expect(stat(store.url.path, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o600)
    }

    @Test func replaceIsAtomicAndLeavesNoTemporaries() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = FileTokenStore(url: directory.appendingPathComponent("tokens.json"))
        try store.save(TokenSet(accessToken: "one"))
        try store.save(TokenSet(accessToken: "two", refreshToken: "rt-2"))
        #expect(try store.load()?.accessToken == "two")
        #expect(try mode(store.url.path) == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["tokens.json"])
    }

    @Test func clearRemovesAndIsIdempotent() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = FileTokenStore(url: directory.appendingPathComponent("tokens.json"))
        try store.save(TokenSet(accessToken: "x"))
        try store.clear()
        #expect(try store.load() == nil)
        try store.clear()
    }

    @Test func corruptFileIsAnError() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent("tokens.json")
        try Data("not json".utf8).write(to: url)
        #expect(throws: FileTokenStoreError.corrupt(url.path)) { try FileTokenStore(url: url).load() }
    }
}
