import Foundation
import GatehouseCrypto
import GatehouseIdentity
import GatehouseSQLite
import GatehouseStore
import Testing

/// The state a cross-site redirect carries (an upstream sign-in's `state`, its finish ticket), as a table:
/// a case stores a payload, does something to the key or the time, and names what taking it gives.
@Suite struct SingleUseStatesTests {
    enum Step: Sendable { case takeFirst, wait(TimeInterval) }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        var before: [Step] = []
        /// The key presented instead of the issued one (nil: the issued key).
        var presented: String? = nil
        let found: Bool
        var testDescription: String { "\(name) → \(found ? "the payload" : "nothing")" }
    }

    static let cases: [Case] = [
        Case(name: "the issued key, once", found: true),
        Case(name: "the issued key just inside its lifetime", before: [.wait(599)], found: true),
        Case(name: "the issued key a second time", before: [.takeFirst], found: false),
        Case(name: "the issued key past its lifetime", before: [.wait(601)], found: false),
        Case(name: "a key never issued", presented: "never-issued", found: false),
        Case(name: "an empty key", presented: "", found: false),
        Case(name: "a key longer than any issued", presented: String(repeating: "k", count: 257), found: false),
    ]

    @Test(arguments: cases)
    func take(_ item: Case) async throws {
        let database = try await SQLiteDatabase.open(url: "sqlite::memory:")
        _ = try await database.migrate()
        let clock = ManualClock()
        let states = SingleUseStates(store: database.flowStates, clock: clock.identity)
        let key = try await states.put(#"{"flow":"web"}"#, lifetime: 600)
        #expect(key.count == 43, "256 random bits, base64url")
        for step in item.before {
            switch step {
            case .takeFirst: _ = try await states.take(key)
            case .wait(let seconds): clock.advance(seconds)
            }
        }
        let taken = try await states.take(item.presented ?? key)
        #expect(taken == (item.found ? #"{"flow":"web"}"# : nil))
    }

    @Test func theStoreHoldsOnlyTheKeysHash() async throws {
        let database = try await SQLiteDatabase.open(url: "sqlite::memory:")
        _ = try await database.migrate()
        let states = SingleUseStates(store: database.flowStates)
        let key = try await states.put("payload", lifetime: 60)
        let row = try #require(try await database.flowStates.consume(stateHash: TokenHash(SHA256.hash(key)), now: Date()))
        #expect(row.payload == "payload", "stored under the SHA-256 of the key")
        #expect(try await states.take(key) == nil, "and taken out once, whoever took it")
    }
}
