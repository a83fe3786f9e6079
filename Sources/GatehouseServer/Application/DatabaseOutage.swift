import GatehouseHTTP
import GatehouseStore

/// A database that cannot be reached (down, restarting, pool closed, statement cancelled) is a
/// temporary condition: clients get 503 with `Retry-After`, as an HTML page or JSON depending on the
/// route (`PageErrorRenderer`), instead of a 500 that says something is broken.
enum DatabaseOutage {
    static let retryAfterSeconds = 5

    static func answer(for error: any Error) -> HTTPError? {
        guard let error = error as? StoreError, error.kind == .unavailable else { return nil }
        return HTTPError(.serviceUnavailable, "The service is briefly unavailable. Please retry in a few seconds.",
                         headers: ["Retry-After": String(retryAfterSeconds)])
    }

    static let answer: @Sendable (any Error) -> HTTPError? = { answer(for: $0) }
}
