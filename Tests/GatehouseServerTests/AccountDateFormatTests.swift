import Foundation
@testable import GatehouseServer
import Testing

/// The account page's hand-written date format against two references: the interpolated version it
/// replaced (`formatSlowly`) and, from 1583 on, Foundation's DateFormatter with the same pattern.
@Suite("Account page date format")
struct AccountDateFormatTests {
    static let reference: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm 'UTC'"
        return formatter
    }()

    static func slow(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return PageContext.formatSlowly(parts)
    }

    @Test func matchesBothReferencesAcrossCenturiesAndBoundaries() {
        var generator = SystemRandomNumberGenerator()
        var dates = [Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 59.999), Date(timeIntervalSince1970: 951_782_400),  // 2000-02-29
                     Date(timeIntervalSince1970: 4_102_444_799), Date(timeIntervalSince1970: 253_402_300_799),  // 2099-12-31 23:59:59, 9999-12-31 23:59:59
                     Date(timeIntervalSince1970: -1), Date(timeIntervalSince1970: -30_610_224_000)]  // 1969, 1000-01-01
        for _ in 0..<5_000 { dates.append(Date(timeIntervalSince1970: Double(Int64.random(in: -30_000_000_000...253_402_300_799, using: &generator)))) }
        for date in dates {
            let fast = PageContext.format(date)
            #expect(fast == Self.slow(date), "\(date.timeIntervalSince1970)")
            // Foundation switches to the Julian calendar before October 1582; gmtime_r (the page before) never does.
            if date.timeIntervalSince1970 >= -12_212_553_600 {
                #expect(fast == Self.reference.string(from: date), "\(date.timeIntervalSince1970)")
            }
            #expect(fast.utf8.count == 20)
        }
    }

    @Test func yearsOutsideFourDigitsTakeTheGeneralForm() {
        let far = Date(timeIntervalSince1970: 253_402_300_800)   // 10000-01-01 00:00
        #expect(PageContext.format(far) == "10000-01-01 00:00 UTC")
        #expect(PageContext.format(far) == Self.slow(far))
        let early = Date(timeIntervalSince1970: -59_000_000_000)  // year 100-ish
        #expect(PageContext.format(early) == Self.slow(early))
    }
}
