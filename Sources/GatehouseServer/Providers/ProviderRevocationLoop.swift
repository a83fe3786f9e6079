import Foundation

/// Runs ``GatehouseApp/processProviderRevocations()`` every `interval` in a background task, so Apple
/// `/auth/revoke` retries go out when they are due even when nobody signs in (sign-ins and Apple
/// notifications also process them, but a quiet server would otherwise never retry).
///
/// `serve` starts one after the server is listening and stops it at shutdown, before the database closes.
public struct ProviderRevocationLoop: Sendable {
    private let task: Task<Void, Never>

    /// Starts the loop; the first pass runs after one `interval` (start-up already has enough to do).
    public static func start(app: GatehouseApp, interval: Duration = .seconds(60)) -> ProviderRevocationLoop {
        ProviderRevocationLoop(task: Task.detached {
            while !Task.isCancelled {
                // Sleep throws on cancellation: that is the way out.
                do { try await Task.sleep(for: interval) } catch { return }
                let revoked = await app.processProviderRevocations()
                if revoked > 0 { app.log.info("provider tokens revoked", [("count", String(revoked))]) }
            }
        })
    }

    /// Cancels the loop and waits for a pass in progress to finish (it never outlives the database).
    public func stop() async {
        task.cancel()
        await task.value
    }
}
