import GatehouseHTTP

/// The operator's logo file and extra stylesheet, when configured.
struct BrandAssetRoutes {
    let branding: Branding

    func register(into router: inout Router) {
        if case .file(let bytes, let contentType) = branding.logo {
            router.get("/assets/logo") { _ in
                var response = AssetRoutes.cached(bytes, contentType)
                // An SVG opened on its own is a document: it may paint itself, never run script.
                response.headers.set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
                return response
            }
        }
        for (id, mark) in branding.providerMarks {
            guard case .file(let bytes, let contentType) = mark else { continue }
            router.get("/assets/marks/\(id)") { _ in
                var response = AssetRoutes.cached(bytes, contentType)
                response.headers.set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
                return response
            }
        }
        if let css = branding.extraCSS {
            let body = Array(css.utf8)
            router.get("/assets/brand.css") { _ in AssetRoutes.cached(body, "text/css; charset=utf-8") }
        }
    }
}

extension BrandAssetRoutes {
    /// The default policy, letting images also load from a remote logo's origin when there is one.
    static func contentSecurityPolicy(for branding: Branding) -> String {
        let base = SecurityHeadersMiddleware.defaultContentSecurityPolicy
        guard let origin = branding.logoOrigin else { return base }
        return base + "; img-src 'self' \(origin)"
    }
}
