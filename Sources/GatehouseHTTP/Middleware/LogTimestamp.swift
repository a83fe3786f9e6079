#if canImport(Glibc)
import Glibc
#endif

/// RFC 3339 timestamps in UTC with milliseconds (`2026-12-01T22:30:01.123Z`) for log lines, written
/// by hand: a `DateFormatter` per line would cost more than the rest of the line.
public enum LogTimestamp {
    public static func now() -> String {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return format(seconds: Int(spec.tv_sec), milliseconds: Int(spec.tv_nsec / 1_000_000))
    }

    public static func format(seconds: Int, milliseconds: Int) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        let fields = [(Int(parts.tm_year) + 1900, 4, "-"), (Int(parts.tm_mon) + 1, 2, "-"), (Int(parts.tm_mday), 2, "T"),
                      (Int(parts.tm_hour), 2, ":"), (Int(parts.tm_min), 2, ":"), (Int(parts.tm_sec), 2, "."),
                      (milliseconds, 3, "Z")]
        var text = ""
        text.reserveCapacity(24)
        for (value, digits, separator) in fields {
            let decimal = String(value)
            if decimal.count < digits { text += String(repeating: "0", count: digits - decimal.count) }
            text += decimal
            text += separator
        }
        return text
    }
}
