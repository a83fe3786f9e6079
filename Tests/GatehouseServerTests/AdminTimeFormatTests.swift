import Foundation
@testable import GatehouseServer
import Testing

/// The admin API's hand-written timestamps against the `ISO8601DateFormatter` they replaced, for stored
/// (whole-millisecond) times from 1970 to 9999.
@Suite("Admin API time format")
struct AdminTimeFormatTests {
    @Test func matchesISO8601DateFormatterWithFractionalSeconds() {
        let reference = ISO8601DateFormatter()
        reference.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var generator = SystemRandomNumberGenerator()
        var milliseconds: [Int64] = [0, 1, 999, 1_000, 59_999, 951_782_400_000, 951_868_799_999,  // 2000-02-29
                                     1_764_628_201_123, 4_102_444_799_999, 253_402_300_799_999]  // 2099, 9999-12-31
        for _ in 0..<5_000 { milliseconds.append(Int64.random(in: 0...253_402_300_799_999, using: &generator)) }
        for value in milliseconds {
            let date = Date(timeIntervalSince1970: Double(value) / 1000)
            let text = AdminJSON.time(date)
            #expect(text == reference.string(from: date), "\(value)")
            #expect(text.utf8.count == 24)
        }
    }
}
