import Foundation
import Synchronization

/// The readiness check gave no answer in time (the database or the pool is stuck).
struct ReadinessTimedOut: Error, CustomStringConvertible {
    let seconds: Double
    var description: String { "readiness check gave no answer within \(seconds) s" }
}

extension OperationsRoutes {
    /// Wraps `check` so it fails after `seconds` even when it has not returned.
    ///
    /// A load balancer polls `/readyz` with a short timeout of its own; a database that
    /// black-holes packets would otherwise keep the probe waiting for libpq's connect timeout,
    /// or behind a pool whose every connection is stuck. The check itself cannot be cancelled
    /// (it runs on a connection's queue), so it is left to finish in the background.
    static func withDeadline(_ seconds: Double, _ check: @escaping ReadinessCheck) -> ReadinessCheck {
        return {
            let once = ResumeOnce()
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                once.set(continuation)
                let timer = Task {
                    try? await Task.sleep(for: .seconds(seconds))
                    if !Task.isCancelled { once.resume(.failure(ReadinessTimedOut(seconds: seconds))) }
                }
                Task {
                    let result: Result<Void, any Error>
                    do { try await check(); result = .success(()) } catch { result = .failure(error) }
                    timer.cancel()
                    once.resume(result)
                }
            }
        }
    }
}

/// A continuation resumed by whichever of two racers comes first; the other is ignored.
private final class ResumeOnce: Sendable {
    private let continuation = Mutex<CheckedContinuation<Void, any Error>?>(nil)

    func set(_ value: CheckedContinuation<Void, any Error>) { continuation.withLock { $0 = value } }

    func resume(_ result: Result<Void, any Error>) {
        let taken = continuation.withLock { current -> CheckedContinuation<Void, any Error>? in
            defer { current = nil }
            return current
        }
        taken?.resume(with: result)
    }
}
