import Foundation
import GatehouseHTTP

/// An RFC 9457 problem: every admin API error is one, as `application/problem+json`.
struct AdminProblem: Error, Sendable {
    let status: HTTPStatus
    let title: String
    let detail: String

    static func badRequest(_ detail: String) -> AdminProblem { AdminProblem(status: .badRequest, title: "Bad request", detail: detail) }
    static func notFound(_ detail: String) -> AdminProblem { AdminProblem(status: .notFound, title: "Not found", detail: detail) }
    static func conflict(_ detail: String) -> AdminProblem { AdminProblem(status: .conflict, title: "Conflict", detail: detail) }
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
        if status == .unauthorized { response.headers.set("WWW-Authenticate", #"Bearer realm="gatehouse-admin", scope="admin""#) }
        return response
    }
}
