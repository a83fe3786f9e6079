import Foundation
import GatehouseIdentity
import GatehouseStore
import Testing

/// A JSON-lines file read in a piece per core: the pieces are the file cut at line ends, and what they read
/// together (records, errors and their line numbers, row order) is what the whole file reads.
@Suite struct ImportFilePiecesTests {
    static let text = """
        {"email": "a@example.com"}
        {"email": "b@example.com"}\r
        not json

        {"email": "c@example.com", "name": "C"}
        {"email": "d@example.com"}
        """

    @Test(arguments: [1, 2, 3, 4, 7, 40])
    func thePiecesAreTheFileCutAtLineEnds(_ parts: Int) {
        let pieces = ImportFileReader.jsonLinePieces(Self.text, parts: parts)
        #expect(pieces.map { String($0.text) }.joined() == Self.text)
        #expect(pieces.count <= parts && pieces.first?.firstLine == 1)
        for piece in pieces.dropLast() { #expect(piece.text.utf8.last == 0x0A) }
        var expectedLine = 1
        for piece in pieces {
            #expect(piece.firstLine == expectedLine)
            expectedLine += piece.text.filter { $0 == "\n" || $0 == "\r\n" }.count
        }
        let whole = ImportFileReader.read(Self.text, format: .jsonLines)
        let read = pieces.map { ImportFileReader.read(jsonLines: $0.text, firstLine: $0.firstLine) }
        #expect(read.flatMap(\.records) == whole.records)
        #expect(read.flatMap(\.errors) == whole.errors)
        #expect(whole.records.map(\.line) == [1, 2, 5, 6] && whole.errors.map(\.line) == [3])
    }

    @Test func anEmptyFileHasNoPieces() {
        #expect(ImportFileReader.jsonLinePieces("", parts: 2).isEmpty)
    }

    /// Over a MiB of rows, read on every core: a bad row deep in the second half is reported by its own line,
    /// and the rows are written in file order.
    @Test func aLargeFileReportsItsErrorsByTheirLinesAndKeepsItsRowOrder() async throws {
        let database = try await SigningKeyRingTests.database()
        let importer = UserImporter(imports: database.userImports, audit: AuditTrail(store: database.auditLog), clock: .system)
        var lines = (1...12_000).map { #"{"email": "piece\#($0)@example.com", "external_id": "p\#($0)", "name": "Row \#($0) padded to make the file long enough"}"# }
        #expect(lines.joined(separator: "\n").utf8.count > UserImporter.piecewiseReadBytes)
        lines[10_999] = #"{"email": "not an address"}"#
        let refused = try await importer.run(lines.joined(separator: "\n"), dryRun: false)
        #expect(refused.errors.map(\.line) == [11_000] && refused.created == 0)
        #expect(try await database.users.count() == 0)

        lines[10_999] = #"{"email": "piece11000@example.com", "external_id": "p11000"}"#
        lines[11_999] = #"{"email": "piece1@example.com", "name": "Renamed by the last line"}"#
        let report = try await importer.run(lines.joined(separator: "\n"), dryRun: false)
        #expect(report.errors.isEmpty && report.created == 11_999 && report.updated == 1)
        // Line 12,000 came after line 1 (file order across the pieces), so its name is the one kept.
        #expect(try await database.users.find(email: "piece1@example.com")?.displayName == "Renamed by the last line")
        #expect(try await database.userImports.find(productUserId: "p11000")?.email == "piece11000@example.com")
    }
}
