// Serves GET /healthz through the same middleware chain as GatehouseApp (metrics, request id, security
// headers; access log off as in bench/http.sh), but from a synchronous main with no Swift tasks, so it
// runs under valgrind for exact instruction counts without the preloaded dispatch_main the real server needs there
// (bench/valgrind/dispatch-main.c).
import GatehouseHTTP
import GatehouseHTTPServer
#if canImport(Glibc)
import Glibc
#endif

var router = Router()
router.get("/healthz") { _ in Response.text("ok") }
router.get("/users/{id}") { request in Response.text(request.pathParameters["id"] ?? "") }
router.post("/login") { _ in Response.text("login") }
let metrics = HTTPMetrics()
let pipeline = RequestPipeline(router: router, middleware: [
    MetricsMiddleware(metrics), RequestIDMiddleware(), SecurityHeadersMiddleware(https: false),
])
let port = UInt16(CommandLine.arguments.dropFirst().first ?? "18590") ?? 18590
let server = HTTPServer(pipeline: pipeline,
                        configuration: HTTPServerConfiguration(listen: ListenAddress(host: "127.0.0.1", port: port), maxHeaderBytes: getenv("HARNESS_MAX_HEADER_BYTES").flatMap { Int(String(cString: $0)) } ?? 32 * 1024))
do { try server.start() } catch { print(error); exit(1) }
print("listening on \(port)")
fflush(nil)
while true { pause() }
