import Foundation
import GatehouseServer
import Testing

/// Start-up refuses malformed `native` objects on configured clients, naming the key.
@Suite struct NativeConfigTests {
    func load(_ native: String) throws -> GatehouseConfiguration {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("native-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try #"{"clients": [{"id": "app", "type": "public", "redirect_uris": ["com.example.app:/cb"], "native": \#(native)}]}"#
            .write(toFile: path, atomically: true, encoding: .utf8)
        return try GatehouseConfiguration.load(environment: [:], configPath: path)
    }

    @Test func aWellFormedNativeObjectIsKept() throws {
        let configuration = try load(#"{"callback_schemes": ["myapp"], "bundle_ids": ["com.example.app"], "package_names": ["com.example.app"]}"#)
        let metadata = configuration.clients[0].registration.metadata
        #expect(metadata.contains(#""callback_schemes":["myapp"]"#) && metadata.contains("com.example.app"))
    }

    @Test(arguments: [
        (#"{"callback_scheme": ["myapp"]}"#, "clients[0].native.callback_scheme", "unknown setting"),
        (#"{"callback_schemes": "myapp"}"#, "clients[0].native.callback_schemes", "array of strings"),
        (#"{"callback_schemes": [1]}"#, "clients[0].native.callback_schemes", "array of strings"),
        (#"{"callback_schemes": []}"#, "clients[0].native.callback_schemes", "must not be empty"),
        (#"{"callback_schemes": ["https"]}"#, "clients[0].native.callback_schemes[0]", "not a private-use scheme"),
        (#"{"callback_schemes": ["myapp", "myapp://cb"]}"#, "clients[0].native.callback_schemes[1]", "scheme name only"),
        (#"{"callback_schemes": ["MyApp"]}"#, "clients[0].native.callback_schemes[0]", "lower case"),
        (#"{"callback_schemes": ["javascript"]}"#, "clients[0].native.callback_schemes[0]", "not a usable URL scheme"),
        (#"{"bundle_ids": ["com.example.app"]}"#, "clients[0].native.bundle_ids", "needs callback_schemes"),
        (#"{"callback_schemes": ["myapp"], "bundle_ids": ["not a bundle id"]}"#, "clients[0].native.bundle_ids[0]", "reverse-DNS"),
        (#"["myapp"]"#, "clients[0].native", "must be an object"),
    ])
    func malformedNativeObjectsStopStartUpNamingTheKey(_ native: String, _ key: String, _ problem: String) throws {
        do {
            _ = try load(native)
            Issue.record("accepted \(native)")
        } catch let error as ConfigurationError {
            #expect(error.key == key, "\(native)")
            #expect(error.problem.contains(problem), "\(native): \(error.problem)")
            #expect(!error.description.contains("\n"), "one line")
        }
    }
}
