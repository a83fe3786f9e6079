// swift-tools-version:6.0
// Gatehouse's fuzzers: a separate package so the sanitizer flags and the libFuzzer entry points never
// reach the main package's ordinary builds. Built and run by `scripts/fuzz` (see docs/fuzzing.md):
//   swift build --package-path fuzz --build-path .build-fuzz -c release -Xswiftc -sanitize=fuzzer,address ...
// Each executable is one libFuzzer target whose sources live in `fuzz/<name>/`, seeds in `fuzz/corpus/<name>/`.
import PackageDescription

let parsers: Target.Dependency = .product(name: "GatehouseParsersForFuzzing", package: "Gatehouse")

func fuzzer(_ name: String) -> Target {
    .executableTarget(name: "fuzz-\(name)", dependencies: ["FuzzSupport", parsers], path: name)
}

let package = Package(
    name: "GatehouseFuzz",
    products: ["http-request", "forms", "cookies", "json", "jose", "jwk", "providers", "oauth-params", "webauthn", "templates"].map {
        .executable(name: "fuzz-\($0)", targets: ["fuzz-\($0)"])
    },
    dependencies: [.package(name: "Gatehouse", path: "..")],
    targets: [
        .target(name: "FuzzSupport", path: "Support"),
        fuzzer("http-request"), fuzzer("forms"), fuzzer("cookies"), fuzzer("json"), fuzzer("jose"), fuzzer("jwk"),
        fuzzer("providers"), fuzzer("oauth-params"), fuzzer("webauthn"), fuzzer("templates"),
    ],
    swiftLanguageModes: [.v6]
)
