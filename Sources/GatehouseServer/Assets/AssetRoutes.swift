import GatehouseHTTP

/// Static assets compiled into the binary.
enum AssetRoutes {
    static func register(into router: inout Router) {
        let css = Array(Stylesheet.css.utf8)
        router.get("/assets/gatehouse.css") { _ in
            var response = Response(status: .ok, headers: ["Content-Type": "text/css; charset=utf-8"], body: css)
            response.headers.set("Cache-Control", "public, max-age=3600")
            return response
        }
    }
}
