import GatehouseHTTP
import GatehouseHTTPServer
import GatehouseTesting

/// A server on an ephemeral loopback port with a few routes the socket tests need.
struct LiveServer {
    let server: HTTPServer
    let port: UInt16

    static func start(_ tweak: (inout HTTPServerConfiguration) -> Void = { _ in }) throws -> LiveServer {
        var router = Router()
        router.get("/hello") { _ in .text("hello") }
        router.get("/healthz") { _ in .text("ok") }
        router.get("/readyz") { _ in .text("ready") }
        router.post("/echo") { request in .text("\(request.body.count)") }
        router.get("/peer") { request in .text(request.remoteAddress ?? "unknown") }
        router.get("/bytes") { request in .text(String(repeating: "b", count: Int(request.query["n"] ?? "0") ?? 0)) }
        router.get("/slow") { request async throws in
            let ms = Int(request.query["ms"] ?? "300") ?? 300
            try await Task.sleep(for: .milliseconds(ms))
            return .text("slow done")
        }
        var configuration = HTTPServerConfiguration(listen: ListenAddress(host: "127.0.0.1", port: 0))
        configuration.maxBodyBytes = 1_024
        configuration.maxHeaderBytes = 8_192
        configuration.connectionTimeoutSeconds = 2
        tweak(&configuration)
        let server = HTTPServer(pipeline: RequestPipeline(router: router, middleware: [SecurityHeadersMiddleware(https: false)]),
                                configuration: configuration)
        let port = try server.start()
        return LiveServer(server: server, port: port)
    }

    var client: SocketClient { SocketClient(port: port) }

    func connection() throws -> RawHTTPConnection { try RawHTTPConnection(port: port) }
}
