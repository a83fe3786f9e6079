import Foundation
import GatehouseHTTP

/// An RFC 9457 problem: every admin API error is one, as `application/problem+json`.
struct AdminProblem: Error, Sendable {
    let status: HTTPStatus
    let title: String
    let detail: String
    /// Seconds for `Retry-After` (429).
    var retryAfter: Int? = nil

    static func badRequest(_ detail: String) -> AdminProblem { AdminProblem(status: .badRequest, title: "Bad request", detail: detail) }
    static func notFound(_ detail: String) -> AdminProblem { AdminProblem(status: .notFound, title: "Not found", detail: detail) }
    static func conflict(_ detail: String) -> AdminProblem { AdminProblem(status: .conflict, title: "Conflict", detail: detail) }
    /// The calling admin client used up its `rate_limits.admin_api_per_client` allowance.
    static func tooManyRequests(retryAfter seconds: TimeInterval) -> AdminProblem {
        let wait = max(1, Int(seconds.rounded(.up)))
        return AdminProblem(status: .tooManyRequests, title: "Too many requests",
                            detail: "This client sent too many admin requests. Retry in \(wait) seconds.", retryAfter: wait)
    }
    static let unauthorized = AdminProblem(status: .unauthorized, title: "Unauthorized",
                                           detail: "Send an access token with the admin scope: Authorization: Bearer <token>.")
    static let forbidden = AdminProblem(status: .forbidden, title: "Forbidden",
                                        detail: "The token lacks the admin scope or its client is not an admin client.")

    var response: Response {
        let object: [String: Any] = ["type": "about:blank", "title": title, "status": status.code, "detail": detail]
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        var response = Response(status: status, body: Array(data))
        response.headers.set("Content-Type", "application/problem+json")
        response.noStore()
        if let retryAfter { response.headers.set("Retry-After", String(retryAfter)) }
        if status == .unauthorized { response.headers.set("WWW-Authenticate", #"Bearer realm="gatehouse-admin", scope="admin""#) }
        return response
    }
}
