// swift-tools-version:6.0
// Gatehouse: a self-hosted sign-in server and its Swift client SDK.
// Targets follow the layers of docs/architecture.md §2; each imports only layers above it.
import PackageDescription

let package = Package(
    name: "Gatehouse",
    // Apple platforms for the client SDK (GatehouseClient, GatehouseClientApple); ignored on Linux, where the server builds.
    platforms: [.iOS(.v15), .macOS(.v13)],
    products: [
        .executable(name: "gatehouse", targets: ["GatehouseCLI"]),
        .library(name: "GatehouseClient", targets: ["GatehouseClient"]),
        .library(name: "GatehouseClientApple", targets: ["GatehouseClientApple"]),
        .executable(name: "gatehouse-simulator", targets: ["GatehouseSimulatorServer"]),
        // For fuzz/Package.swift only (a separate package, so sanitizer flags stay out of this one).
        .library(name: "GatehouseParsersForFuzzing", targets: ["GatehouseHTTP", "GatehouseCrypto", "GatehouseProviders", "GatehouseIdentity"]),
    ],
    targets: [
        // MARK: C shims (Debian -dev packages through pkg-config)
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CCrypt", pkgConfig: "libxcrypt", providers: [.apt(["libcrypt-dev"])]),
        // QR codes of the authenticator-app enrolment, drawn by Gatehouse itself (no outside service).
        .systemLibrary(name: "CQREncode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),

        // MARK: HTTP: requests, responses, router, middleware (pure Swift) and the libmicrohttpd bridge
        // MARK: Network: IP addresses and CIDR blocks (pure Swift over Glibc), for proxies and rate-limit keys
        .target(name: "GatehouseNetwork"),
        .target(name: "GatehouseHTTP", dependencies: ["GatehouseNetwork"]),
        .target(name: "GatehouseHTTPServer", dependencies: ["GatehouseHTTP", "CMicroHTTPD"]),

        // MARK: Crypto: JOSE, keys, passwords, primitives
        .target(name: "GatehouseCrypto", dependencies: ["COpenSSL", "CSodium", "CCrypt"]),

        // MARK: Store: backend-neutral protocols, the stores written once in SQL, and the two backends
        .target(name: "GatehouseStore"),
        .target(name: "GatehouseSQLStore", dependencies: ["GatehouseStore"]),
        .target(name: "GatehouseSQLite", dependencies: ["GatehouseStore", "GatehouseSQLStore", "CSQLite"]),
        .target(name: "GatehousePostgres", dependencies: ["GatehouseStore", "GatehouseSQLStore", "CLibPQ"]),

        // MARK: Identity core: accounts, sessions, policies (no HTTP, no SQL)
        .target(name: "GatehouseIdentity", dependencies: ["GatehouseCrypto", "GatehouseStore", "GatehouseNetwork"]),

        // MARK: Mail: the SMTP Mailer on libcurl
        .target(name: "GatehouseMail", dependencies: ["GatehouseIdentity", "CCurl"]),

        // MARK: Providers: Apple, Google, GitHub and generic OIDC behind one protocol, and Identity's native-token port (no HTTP server, no routes)
        .target(name: "GatehouseProviders", dependencies: ["GatehouseCrypto", "GatehouseIdentity"]),

        // MARK: Server and CLI
        .target(name: "GatehouseServer", dependencies: [
            "GatehouseHTTP", "GatehouseHTTPServer", "GatehouseCrypto", "GatehouseStore", "GatehouseSQLite", "GatehousePostgres",
            "GatehouseIdentity", "GatehouseMail", "GatehouseProviders", "GatehouseNetwork", "CQREncode",
        ], exclude: ["Assets/Files"], plugins: ["EmbedAssets"]),
        // Stylesheets and scripts from Sources/GatehouseServer/Assets/Files compiled in as strings (one binary, no bundle).
        .executableTarget(name: "GatehouseAssetEmbedder"),
        .plugin(name: "EmbedAssets", capability: .buildTool(), dependencies: ["GatehouseAssetEmbedder"]),
        // Demo mode's simulated providers, composed into the executable: the server target never links the simulator.
        .target(name: "GatehouseDemo", dependencies: ["GatehouseServer", "GatehouseProviderSimulator", "GatehouseProviders", "GatehouseHTTP",
                                                      "GatehouseIdentity"]),
        .executableTarget(name: "GatehouseCLI", dependencies: ["GatehouseServer", "GatehouseDemo", "GatehouseClient", "GatehouseClientOpenSSL",
                                                             "GatehouseNetwork", "GatehouseCrypto", "GatehouseIdentity", "GatehouseStore", "GatehouseSQLStore", "GatehouseSQLite",
                                                             "GatehouseHTTPServer"]),

        // MARK: Client SDK: Foundation only, no server target or C library (an iOS app builds just these)
        .target(name: "GatehouseClient", exclude: ["README.md"]),
        .target(name: "GatehouseClientApple", dependencies: ["GatehouseClient"], exclude: ["README.md"]),
        // OpenSSL-backed ID-token signature verifier for Linux (kept out of the Foundation-only product)
        .target(name: "GatehouseClientOpenSSL", dependencies: ["GatehouseClient", "GatehouseCrypto"]),

        // MARK: Provider simulator: faithful Apple/Google/GitHub stand-ins for tests and the demo mode
        .target(name: "GatehouseProviderSimulator", dependencies: ["GatehouseHTTP", "GatehouseCrypto"]),
        .executableTarget(name: "GatehouseSimulatorServer", dependencies: ["GatehouseProviderSimulator", "GatehouseHTTP", "GatehouseHTTPServer",
                                                                          "GatehouseCrypto"]),

        // MARK: Test support: one test body over an in-process or a socket client
        .target(name: "GatehouseTesting", dependencies: ["GatehouseHTTP", "GatehouseHTTPServer"]),
        // A WebAuthn authenticator and client in software, for driving the relying party in tests.
        .target(name: "GatehouseWebAuthnTesting", dependencies: ["GatehouseCrypto", "GatehouseIdentity"]),

        // MARK: Benchmarks (release-built executables)
        .executableTarget(name: "GatehouseHTTPHarness", dependencies: ["GatehouseHTTP", "GatehouseHTTPServer"], path: "bench/httpharness"),
        .executableTarget(name: "GatehouseCryptoBench", dependencies: ["GatehouseCrypto"], path: "bench/crypto"),

        // MARK: Tests
        .testTarget(name: "GatehouseHTTPTests", dependencies: ["GatehouseHTTP", "GatehouseTesting", "GatehouseNetwork"]),
        .testTarget(name: "GatehouseHTTPServerTests", dependencies: ["GatehouseHTTPServer", "GatehouseHTTP", "GatehouseTesting"]),
        .testTarget(name: "GatehouseCryptoTests", dependencies: ["GatehouseCrypto", "GatehouseWebAuthnTesting"]),
        .testTarget(name: "GatehouseStoreTests", dependencies: ["GatehouseStore", "GatehouseSQLStore", "GatehouseSQLite", "CSQLite", "GatehousePostgres", "CLibPQ"]),
        .testTarget(name: "GatehouseIdentityTests", dependencies: ["GatehouseIdentity", "GatehouseSQLite", "GatehouseStore", "GatehouseCrypto",
                                                            "GatehouseWebAuthnTesting"],
                    exclude: ["WebAuthn/Fixtures"]),
        .testTarget(name: "GatehouseClientTests", dependencies: ["GatehouseClient"]),
        .testTarget(name: "GatehouseClientOpenSSLTests", dependencies: ["GatehouseClientOpenSSL", "GatehouseClient", "GatehouseCrypto",
                                                                 "GatehouseTesting"]),
        // The SDK over real sockets: against a live Gatehouse and against the GitHub simulator.
        .testTarget(name: "GatehouseClientLiveTests", dependencies: [
            "GatehouseClient", "GatehouseClientOpenSSL", "GatehouseServer", "GatehouseProviderSimulator", "GatehouseHTTP",
            "GatehouseHTTPServer", "GatehouseTesting", "GatehouseSQLite", "GatehouseIdentity", "GatehouseCrypto", "GatehouseStore",
            "GatehouseWebAuthnTesting",
        ]),
        .testTarget(name: "GatehouseMailTests", dependencies: ["GatehouseMail", "GatehouseIdentity"], exclude: ["Fixtures"]),
        .testTarget(name: "GatehouseProviderSimulatorTests", dependencies: ["GatehouseProviderSimulator", "GatehouseHTTP", "GatehouseCrypto", "GatehouseTesting"]),
        .testTarget(name: "GatehouseServerTests", dependencies: [
            "GatehouseServer", "GatehouseDemo", "GatehouseHTTP", "GatehouseTesting", "GatehouseStore", "GatehouseSQLite", "GatehouseIdentity",
            "GatehouseCrypto", "GatehouseNetwork", "GatehouseWebAuthnTesting", "GatehouseHTTPServer", "GatehouseProviders",
        ]),
        .testTarget(name: "GatehouseProvidersTests", dependencies: [
            "GatehouseProviders", "GatehouseServer", "GatehouseDemo", "GatehouseProviderSimulator", "GatehouseHTTP", "GatehouseCrypto",
            "GatehouseTesting", "GatehouseStore", "GatehouseSQLite", "GatehouseIdentity", "GatehouseHTTPServer",
        ]),
    ],
    swiftLanguageModes: [.v6]
)

// The Hotwire Native bridge component (Integrations/HotwireNative), for iOS apps that add this package by URL or path
// (docs/integrations/swift-package.md). Apple platforms only: hotwire-native-ios needs UIKit and WebKit, so on Linux,
// where the server builds, neither the dependency nor the target exists and nothing is fetched.
#if canImport(Darwin)
package.dependencies.append(.package(url: "https://github.com/hotwired/hotwire-native-ios", from: "1.2.0"))
package.products.append(.library(name: "GatehouseHotwireNative", targets: ["GatehouseHotwireNative"]))
package.targets.append(.target(name: "GatehouseHotwireNative", dependencies: [
    "GatehouseClient", "GatehouseClientApple", .product(name: "HotwireNative", package: "hotwire-native-ios"),
], path: "Integrations/HotwireNative/Sources/GatehouseHotwireNative"))
#endif
