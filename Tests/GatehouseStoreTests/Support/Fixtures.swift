import Foundation
import GatehouseStore
import Testing

/// Test times are whole milliseconds: the stores keep millisecond precision.
enum TestTime {
    /// 2026-01-01T00:00:00Z.
    static let base = Date(timeIntervalSince1970: 1_767_225_600)

    static func at(_ seconds: Double) -> Date {
        Date(timeIntervalSince1970: base.timeIntervalSince1970 + seconds)
    }
}

/// A distinct, deterministic-looking 32-byte hash for tests (the stores never hash).
func testHash(_ seed: String) -> TokenHash {
    var bytes = [UInt8](repeating: 0, count: 32)
    for (index, byte) in seed.utf8.enumerated() { bytes[index % 32] &+= byte &+ UInt8(truncatingIfNeeded: index) }
    bytes[31] = UInt8(truncatingIfNeeded: seed.utf8.count)
    return TokenHash(bytes)
}

/// Expects `body` to throw a `StoreError` of `kind`.
func expectStoreError(_ kind: StoreError.Kind, sourceLocation: SourceLocation = #_sourceLocation,
                      _ body: () async throws -> Void) async {
    do {
        try await body()
        Issue.record("expected StoreError.\(kind), nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as StoreError {
        #expect(error.kind == kind, "got \(error.kind): \(error.detail)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected StoreError.\(kind), got \(error)", sourceLocation: sourceLocation)
    }
}
