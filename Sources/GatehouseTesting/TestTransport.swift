import GatehouseHTTP
import GatehouseHTTPServer

/// Where a test's requests travel: straight into the pipeline (`.inProcess`), or over a real loopback socket
/// through libmicrohttpd (`.socket`), so one test body can prove a behaviour on both, as Hummingbird runs one
/// body over its test frameworks. Use `@Test(arguments: TestTransport.allCases)` where the wire matters
/// (HEAD bodies, headers, limits the bridge enforces); in-process alone elsewhere.
public enum TestTransport: String, CaseIterable, Sendable {
    case inProcess, socket

    /// Runs `body` with a client over this transport to `pipeline`. For `.socket` a server is started on an
    /// ephemeral loopback port with `configuration` (its `listen` is replaced) and stopped afterwards, also when
    /// `body` throws.
    public func run<Result: Sendable>(_ pipeline: RequestPipeline,
                                      configuration: HTTPServerConfiguration = HTTPServerConfiguration(),
                                      timeoutSeconds: Int = 60,
                                      _ body: (any TestClient) async throws -> Result) async throws -> Result {
        switch self {
        case .inProcess:
            return try await body(InProcessClient(pipeline))
        case .socket:
            var configuration = configuration
            configuration.listen = ListenAddress(host: "127.0.0.1", port: 0)
            let server = HTTPServer(pipeline: pipeline, configuration: configuration)
            let port = try server.start()
            do {
                let result = try await body(SocketClient(port: port, timeoutSeconds: timeoutSeconds))
                _ = await server.stop()
                return result
            } catch {
                _ = await server.stop()
                throw error
            }
        }
    }
}
