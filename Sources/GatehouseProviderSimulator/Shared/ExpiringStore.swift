import Foundation
import Synchronization

/// A bounded, in-memory map whose entries expire: the simulator's codes, tokens and consents.
///
/// Every write first drops expired entries; when still full, the entry closest to expiry goes,
/// so a test (or a stray crawler hitting the demo) can never grow memory without limit.
final class ExpiringStore<Value: Sendable>: Sendable {
    private struct Entry: Sendable {
        var value: Value
        var expiresAt: Date
    }

    private let capacity: Int
    private let entries = Mutex<[String: Entry]>([:])

    init(capacity: Int) {
        precondition(capacity > 0, "an ExpiringStore needs room for one entry")
        self.capacity = capacity
    }

    /// Stores `value` under `key` until `expiresAt`, replacing any previous value.
    func put(_ key: String, _ value: Value, expiresAt: Date, now: Date) {
        entries.withLock { entries in
            if entries.count >= capacity {
                entries = entries.filter { $0.value.expiresAt > now }
            }
            if entries.count >= capacity, entries[key] == nil,
               let oldest = entries.min(by: { $0.value.expiresAt < $1.value.expiresAt })?.key {
                entries[oldest] = nil
            }
            entries[key] = Entry(value: value, expiresAt: expiresAt)
        }
    }

    /// The live value for `key`, leaving it in place.
    func get(_ key: String, now: Date) -> Value? {
        entries.withLock { entries in
            guard let entry = entries[key] else { return nil }
            guard entry.expiresAt > now else {
                entries[key] = nil
                return nil
            }
            return entry.value
        }
    }

    /// Removes and returns the live value for `key`: what single-use codes need, atomically.
    func take(_ key: String, now: Date) -> Value? {
        entries.withLock { entries in
            guard let entry = entries.removeValue(forKey: key), entry.expiresAt > now else { return nil }
            return entry.value
        }
    }

    /// Removes `key` if present.
    func remove(_ key: String) {
        _ = entries.withLock { $0.removeValue(forKey: key) }
    }

    /// Removes every entry whose value matches `predicate` (e.g. the access tokens of a revoked grant).
    func removeAll(where predicate: (Value) -> Bool) {
        entries.withLock { entries in entries = entries.filter { !predicate($0.value.value) } }
    }

    /// Entries currently held, expired ones included until the next write (tests and metrics).
    var count: Int { entries.withLock { $0.count } }
}
