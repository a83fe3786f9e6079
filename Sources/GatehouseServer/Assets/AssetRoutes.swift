import GatehouseHTTP

/// Static assets compiled into the binary (`Assets/Files`, embedded by the EmbedAssets plugin) and the
/// brand's own files read at start-up.
enum AssetRoutes {
    static func register(into router: inout Router, branding: Branding) {
        // The built-in stylesheet, then the palette's custom properties (later rules win).
        let css = Array(((EmbeddedAssets.files["gatehouse.css"] ?? "") + "\n" + branding.palette.cssVariables + "\n"
            + ProviderButtonStyle.cssVariables(for: branding.palette, marks: branding.providerMarks) + "\n").utf8)
        router.get("/assets/gatehouse.css") { _ in cached(css, "text/css; charset=utf-8") }
        BrandAssetRoutes(branding: branding).register(into: &router)
    }

    static func cached(_ body: [UInt8], _ contentType: String) -> Response {
        var response = Response(status: .ok, headers: ["Content-Type": contentType], body: body)
        response.headers.set("Cache-Control", "public, max-age=3600")
        return response
    }
}
