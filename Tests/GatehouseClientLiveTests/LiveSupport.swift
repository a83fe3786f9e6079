import Foundation
#if canImport(Glibc)
import Glibc
#endif
import GatehouseClient
import GatehouseTesting

/// A free loopback port (bound and released at once: Gatehouse needs its public URL before it starts).
func freeLoopbackPort() throws -> UInt16 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
    }
    guard bound else { throw POSIXError(.EADDRINUSE) }
    return UInt16(bigEndian: address.sin_port)
}

/// Collects the events of an `AuthState` stream as they arrive.
final class EventLog: Sendable {
    private let events = Recorder<AuthEvent>()
    private let task: Task<Void, Never>

    init(_ stream: AsyncStream<AuthEvent>) {
        let events = events
        task = Task { for await event in stream { events.append(event) } }
    }

    var all: [AuthEvent] { events.all }

    /// Waits (up to 20 s, for a loaded machine) until `count` events have arrived; the stream is asynchronous.
    func waitFor(count: Int) async -> [AuthEvent] {
        for _ in 0..<2_000 where all.count < count { try? await Task.sleep(for: .milliseconds(10)) }
        return all
    }

    func stop() { task.cancel() }
}

/// Event kinds without their payloads, for readable expectations.
func kinds(_ events: [AuthEvent]) -> [String] {
    events.map {
        switch $0 {
        case .initial(let tokens): tokens == nil ? "initial(nil)" : "initial"
        case .signedIn: "signedIn"
        case .refreshed: "refreshed"
        case .signedOut: "signedOut"
        case .sessionEnded(let error): "sessionEnded(\(error?.code.rawValue ?? "nil"))"
        }
    }
}
