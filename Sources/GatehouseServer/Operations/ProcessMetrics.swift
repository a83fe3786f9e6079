import Foundation
import GatehouseHTTP

/// The standard `process_*` families (the names every Prometheus client library exports), read from
/// `/proc/self` at scrape time: no sampling thread, and nothing when `/proc` is missing.
enum ProcessMetrics {
    static func render(into text: inout PrometheusText) {
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        let pageSize = Double(sysconf(Int32(_SC_PAGESIZE)))
        guard let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
              let closing = stat.lastIndex(of: ")"), ticks > 0 else { return }
        // Fields after the command name (which may hold spaces), numbered from 3 (state) as in proc(5).
        let fields = stat[stat.index(after: closing)...].split(separator: " ")
        func field(_ number: Int) -> Double { Double(fields[number - 3]) ?? 0 }
        guard fields.count > 21 else { return }
        text.family("process_cpu_seconds_total", type: "counter", help: "Total user and system CPU time spent in seconds.")
        text.sample("process_cpu_seconds_total", value: (field(14) + field(15)) / ticks)
        text.family("process_resident_memory_bytes", type: "gauge", help: "Resident memory size in bytes.")
        text.sample("process_resident_memory_bytes", value: field(24) * pageSize)
        text.family("process_virtual_memory_bytes", type: "gauge", help: "Virtual memory size in bytes.")
        text.sample("process_virtual_memory_bytes", value: field(23))
        if let boot = bootTime {
            text.family("process_start_time_seconds", type: "gauge", help: "Start time of the process since the Unix epoch in seconds.")
            text.sample("process_start_time_seconds", value: boot + field(22) / ticks)
        }
        if let open = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") {
            text.family("process_open_fds", type: "gauge", help: "Number of open file descriptors.")
            // The directory listing itself holds one descriptor while it runs.
            text.sample("process_open_fds", value: Double(max(0, open.count - 1)))
        }
        var limit = rlimit()
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 {
            text.family("process_max_fds", type: "gauge", help: "Maximum number of open file descriptors.")
            text.sample("process_max_fds", value: Double(limit.rlim_cur))
        }
    }

    /// `btime` from /proc/stat: the boot time the process start (in ticks since boot) is relative to.
    private static let bootTime: Double? = {
        guard let stat = try? String(contentsOfFile: "/proc/stat", encoding: .utf8) else { return nil }
        for line in stat.split(separator: "\n") where line.hasPrefix("btime ") {
            return Double(line.dropFirst(6).trimmingCharacters(in: .whitespaces))
        }
        return nil
    }()
}
