import Foundation
import Synchronization

/// Waits for SIGINT or SIGTERM (dispatch sources, so no async-signal-safety traps).
enum ShutdownSignal {
    static func wait() async -> String {
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let queue = DispatchQueue(label: "gatehouse-simulator.signals")
        return await withCheckedContinuation { continuation in
            let once = SignalOnce(continuation)
            for (number, name) in [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")] {
                let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                source.setEventHandler { once.fire(name) }
                source.resume()
                once.keep(source)
            }
        }
    }
}

/// Resumes the continuation for the first signal only, and keeps the sources alive meanwhile.
private final class SignalOnce: Sendable {
    private let state: Mutex<(CheckedContinuation<String, Never>?, [any DispatchSourceSignal])>

    init(_ continuation: CheckedContinuation<String, Never>) { state = Mutex((continuation, [])) }

    func keep(_ source: any DispatchSourceSignal) { state.withLock { $0.1.append(source) } }

    func fire(_ name: String) {
        let continuation = state.withLock { state -> CheckedContinuation<String, Never>? in
            defer { state.0 = nil }
            return state.0
        }
        continuation?.resume(returning: name)
    }
}
