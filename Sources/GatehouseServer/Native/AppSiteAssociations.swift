import Foundation
import GatehouseHTTP
import GatehouseIdentity
import GatehouseStore

/// `/.well-known/apple-app-site-association` (applinks for the claimed https callbacks, webcredentials for
/// `ASWebAuthenticationSession` `.https(host:path:)`) and `/.well-known/assetlinks.json` (Android App
/// Links), built from the native objects of the configured clients. Both must be served at the host
/// root: in the one-origin shape the product's proxy forwards these two paths to Gatehouse
/// (docs/integrations/hotwire-native.md). Nothing is served when no app registers the keys.
struct AppSiteAssociations: Sendable {
    let apple: [UInt8]?
    let android: [UInt8]?

    init(apps: [NativeApp]) {
        let appleIDs = apps.flatMap(\.appleAppIDs)
        if appleIDs.isEmpty {
            apple = nil
        } else {
            var details: [[String: Any]] = []
            for app in apps where !app.appleAppIDs.isEmpty {
                let paths = app.callbackURLs.compactMap { URLComponents(string: $0)?.path }.filter { !$0.isEmpty }
                details.append(["appIDs": app.appleAppIDs, "components": paths.map { ["/": $0, "comment": "Gatehouse hand-off callback"] }])
            }
            apple = Self.encode(["applinks": ["details": details], "webcredentials": ["apps": appleIDs]])
        }
        let statements: [[String: Any]] = apps.flatMap { app -> [[String: Any]] in
            guard !app.androidCertFingerprints.isEmpty else { return [] }
            return app.packageNames.map { package in
                ["relation": ["delegate_permission/common.handle_all_urls", "delegate_permission/common.get_login_creds"],
                 "target": ["namespace": "android_app", "package_name": package, "sha256_cert_fingerprints": app.androidCertFingerprints]]
            }
        }
        android = statements.isEmpty ? nil : Self.encode(statements)
    }

    static func encode(_ value: Any) -> [UInt8] {
        Array((try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8))
    }

    func register(into router: inout Router) {
        for (path, body) in [("/.well-known/apple-app-site-association", apple), ("/.well-known/assetlinks.json", android)] {
            guard let body else { continue }
            router.get(path) { _ in
                var response = Response.json(bytes: body)
                response.headers.set("Cache-Control", "public, max-age=3600")
                return response
            }
        }
    }
}
