import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The sd_notify protocol without libsystemd: datagrams such as `READY=1` to the unix socket systemd
/// names in `NOTIFY_SOCKET` (a path, or `@name` for the abstract namespace). Without the variable
/// (not run by systemd, or `Type=simple`) every call does nothing.
struct SystemdNotifier: Sendable {
    let socketPath: String?
    /// Half of `WATCHDOG_USEC` (systemd's advice), when the watchdog is on for this process.
    let watchdogInterval: Duration?

    init(environment: [String: String]) {
        socketPath = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
        // WATCHDOG_PID, when set, names the process the watchdog is meant for.
        let forUs = environment["WATCHDOG_PID"].map { $0 == String(getpid()) } ?? true
        if forUs, let micros = environment["WATCHDOG_USEC"].flatMap(UInt64.init), micros > 0 {
            watchdogInterval = .microseconds(Int64(micros / 2))
        } else {
            watchdogInterval = nil
        }
    }

    var isActive: Bool { socketPath != nil }

    /// Sends one state message (`READY=1\nSTATUS=…`); returns whether it was sent.
    @discardableResult
    func notify(_ state: String) -> Bool {
        guard let socketPath else { return false }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var path = Array(socketPath.utf8)
        let abstract = path.first == UInt8(ascii: "@")
        if abstract { path[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.count < capacity else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.enumerated() { buffer[index] = byte }
        }
        // An abstract name's length is exact (no terminating NUL); a path's includes none either.
        let length = socklen_t(MemoryLayout<sa_family_t>.size + path.count)
        let message = Array(state.utf8)
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                message.withUnsafeBytes { bytes in
                    sendto(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL), socketAddress, length)
                }
            }
        }
        return sent == message.count
    }

    /// Pings the watchdog every `watchdogInterval` until cancelled; nil when there is no watchdog.
    /// The ping runs on the cooperative pool, so a process whose tasks no longer run stops pinging.
    func startWatchdog() -> Task<Void, Never>? {
        guard isActive, let interval = watchdogInterval else { return nil }
        return Task {
            while !Task.isCancelled {
                notify("WATCHDOG=1")
                try? await Task.sleep(for: interval)
            }
        }
    }
}
