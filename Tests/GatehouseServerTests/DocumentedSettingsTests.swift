import Foundation
import GatehouseCrypto
import GatehouseDemo
import GatehouseHTTP
import GatehouseServer
import GatehouseSQLite
import GatehouseTesting
import Testing

/// Every setting README.md and docs/ document is accepted, read out of the markdown itself (second review, item
/// 10: documented native keys were refused at start-up). Two sources: each fenced ```json block that is a
/// configuration example, loaded and served as it is written; and each documented key (`section.key`,
/// `clients[].key`, `clients[].native.key`, and the README's settings table), loaded with a value of its kind.
@Suite struct DocumentedSettingsTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// README.md and every markdown file under docs/, with their paths.
    static func documents() throws -> [(path: String, text: String)] {
        var result = [("README.md", try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8))]
        let docs = root.appendingPathComponent("docs")
        let walker = FileManager.default.enumerator(at: docs, includingPropertiesForKeys: nil)
        while let url = walker?.nextObject() as? URL {
            guard url.pathExtension == "md" else { continue }
            result.append(("docs/" + url.path.dropFirst(docs.path.count + 1), try String(contentsOf: url, encoding: .utf8)))
        }
        return result.sorted { $0.0 < $1.0 }
    }

    /// The top-level sections of the configuration file (`ConfigFile.knownSections`, as the docs name them).
    static let sections: Set<String> = ["http", "access_log", "providers", "clients", "sessions", "maintenance", "keys",
                                        "passwords", "rate_limits", "mail", "oauth", "native", "users", "webhooks"]

    // MARK: Fenced examples

    /// The ```json blocks whose top-level keys include a configuration section, as JSON objects. A fragment
    /// (`"providers": {…}`) is wrapped in braces; `…` elisions (`"…": "…"`, `…,`) are dropped.
    static func configurationBlocks() throws -> [(origin: String, json: [String: Any])] {
        var blocks: [(String, [String: Any])] = []
        for (path, text) in try documents() {
            let lines = text.components(separatedBy: "\n")
            var index = 0
            while index < lines.count {
                guard lines[index].trimmingCharacters(in: .whitespaces) == "```json" else { index += 1; continue }
                let start = index + 1
                var end = start
                while end < lines.count, lines[end].trimmingCharacters(in: .whitespaces) != "```" { end += 1 }
                let body = lines[start..<min(end, lines.count)].joined(separator: "\n")
                index = end + 1
                var cleaned = body.replacingOccurrences(of: #""…":\s*"…",?"#, with: "", options: .regularExpression)
                cleaned = cleaned.replacingOccurrences(of: #"…,\s*"#, with: "", options: .regularExpression)
                cleaned = cleaned.replacingOccurrences(of: #",\s*(\}|\])"#, with: "$1", options: .regularExpression)
                let trimmed = cleaned.trimmingCharacters(in: .whitespacesAndNewlines)
                let wrapped = trimmed.hasPrefix("{") ? trimmed : "{" + trimmed + "}"
                guard let object = try? JSONSerialization.jsonObject(with: Data(wrapped.utf8)) as? [String: Any] else {
                    if sections.contains(where: { trimmed.hasPrefix("\"\($0)\"") }) {
                        Issue.record("\(path) line \(start): a configuration example that is not JSON")
                    }
                    continue
                }
                // One entry of `clients` (an object with an id and a type, not an event body's `data`) is served
                // as the only client.
                if object["id"] != nil, object["type"] != nil, object["data"] == nil {
                    blocks.append(("\(path) line \(start)", ["clients": [object]]))
                } else if object.keys.contains(where: sections.contains) {
                    blocks.append(("\(path) line \(start)", object))
                }
            }
        }
        return blocks
    }

    /// Writes `json` as a configuration file beside the files it names, with every `*_env` variable set.
    static func write(_ json: [String: Any]) throws -> (path: String, environment: [String: String]) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("documented-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var environment: [String: String] = ["GATEHOUSE_PUBLIC_URL": "https://app.example/auth"]
        func visit(_ value: Any) throws {
            if let object = value as? [String: Any] {
                for (key, inner) in object {
                    if key.hasSuffix("_env"), let name = inner as? String { environment[name] = SecureRandom.token() }
                    if key == "private_key_file", let name = inner as? String {
                        try GatehouseCrypto.SigningKey.generate(.es256).pkcs8PEM()
                            .write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8)
                    }
                    try visit(inner)
                }
            } else if let list = value as? [Any] {
                for inner in list { try visit(inner) }
            }
        }
        try visit(json)
        let path = directory.appendingPathComponent("gatehouse.json").path
        try JSONSerialization.data(withJSONObject: json).write(to: URL(fileURLWithPath: path))
        return (path, environment)
    }

    /// Each documented configuration example loads and the server answers with it, its clients registered as
    /// `serve` registers them.
    @Test func everyDocumentedConfigurationExampleStartsTheServer() async throws {
        let blocks = try Self.configurationBlocks()
        #expect(blocks.count >= 10, "found \(blocks.count) examples")
        #expect(blocks.contains { ($0.json["clients"] as? [[String: Any]])?.contains { $0["native"] != nil } == true },
                "the native registration example is among them")
        for (origin, json) in blocks {
            let (path, environment) = try Self.write(json)
            let configuration: GatehouseConfiguration
            do { configuration = try GatehouseConfiguration.load(environment: environment, configPath: path) } catch {
                Issue.record("\(origin): refused: \(error)")
                continue
            }
            var cheap = configuration
            cheap.passwordHashing = Argon2idParameters(memoryBytes: 1 << 20, iterations: 1)
            cheap.signingKeyGenerator = TestSigningKeys.generate
            let database = try await SQLiteDatabase.open(url: "sqlite::memory:")
            _ = try await database.migrate()
            let app = GatehouseApp(configuration: cheap, database: database, secrets: ServerSecrets(master: SecureRandom.bytes(32)),
                                   log: ServerLog(sink: { _ in }), accessLogSink: { _ in }, mailer: RecordingMailer(),
                                   demoProviders: SimulatedDemoProviders())
            try await app.services.keys.ensureSigningKey()
            do {
                for client in app.configuration.clients {
                    try await app.services.tokens.registry.apply(client.registration, secret: client.secret)
                }
            } catch {
                Issue.record("\(origin): its clients are refused at start: \(error)")
                continue
            }
            let client = InProcessClient(app.pipeline)
            #expect(try await client.get("/auth/healthz").status == 200, "\(origin)")
            #expect(try await client.get("/auth/sign-in").status == 200, "\(origin)")
            let clients = json["clients"] as? [[String: Any]] ?? []
            if clients.contains(where: { ($0["native"] as? [String: Any])?["apple_app_ids"] != nil }) {
                let association = try await client.get("/auth/.well-known/apple-app-site-association")
                #expect(association.status == 200 && association.text.contains("applinks"), "\(origin)")
            }
        }
    }

    // MARK: Documented keys

    /// Backticked dotted names whose first part is a configuration section (`http.trusted_proxies`,
    /// `clients[].native.callback_urls`), plus the keys the README's settings table names (`access_log`, and
    /// for a `rate_limits.*` row the rule names its meaning lists).
    static func documentedKeys() throws -> [String: String] {
        var keys: [String: String] = [:]
        let dotted = try NSRegularExpression(pattern: #"`([a-z_]+(?:\[\])?(?:\.[a-z_0-9]+)+)`"#)
        for (path, text) in try documents() {
            for match in dotted.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                let key = String(text[Range(match.range(at: 1), in: text)!])
                let first = String(key.prefix { $0 != "." && $0 != "[" })
                guard sections.contains(first), !Self.notSettings.contains(key) else { continue }
                keys[key] = keys[key] ?? path
            }
            // A key table introduced by a line naming its section (`clients[].native` in the config file …:):
            // each row's first-cell names are keys of that section.
            let lines = text.components(separatedBy: "\n")
            for (index, line) in lines.enumerated() where index + 4 < lines.count && lines[index + 2].hasPrefix("| key |") {
                guard let prefix = Self.backticked(line).first(where: { name in
                    sections.contains(String(name.prefix { $0 != "." && $0 != "[" })) && name.contains(".")
                }) else { continue }
                for row in lines[(index + 4)...] {
                    guard row.hasPrefix("| `") else { break }
                    let cells = row.split(separator: "|", omittingEmptySubsequences: false).map { String($0) }
                    for name in Self.backticked(cells[1]) where name.range(of: "^[a-z][a-z0-9_]*$", options: .regularExpression) != nil {
                        keys[prefix + "." + name] = keys[prefix + "." + name] ?? path
                    }
                }
            }
            guard path == "README.md" else { continue }
            for line in text.components(separatedBy: "\n") where line.hasPrefix("| `") {
                let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { String($0) }
                guard cells.count > 3 else { continue }
                let names = Self.backticked(cells[1])
                for name in names where sections.contains(name) { keys[name] = keys[name] ?? path }
                for name in names where name.hasSuffix(".*") && sections.contains(String(name.dropLast(2))) {
                    for rule in Self.backticked(cells[3]) where rule.range(of: "^[a-z][a-z0-9_]*$", options: .regularExpression) != nil {
                        keys[String(name.dropLast(2)) + "." + rule] = path
                    }
                }
            }
        }
        return keys
    }

    /// Dotted names in the docs that are not settings: database columns, audit events and catalogue keys.
    static let notSettings: Set<String> = ["users.external_id", "users.id", "users.imported", "users.verified_by_import",
                                           "mail.suppressed", "mail.signature"]

    static func backticked(_ text: String) -> [String] {
        text.components(separatedBy: "`").enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
    }

    /// Values of the kinds settings take; a key is accepted when one of them loads.
    static var candidates: [Any] { [
        60, 64, 10, 65536, 7_776_000, true, "required", "X-Forwarded-For", "external_id", "smtp://127.0.0.1:25", "id@example.com",
        ["127.0.0.1/32"], [["limit": 5, "window_seconds": 60]], [String](), [String: Any](),
        ["https://app.example/auth/native/callback"], ["ABCDE12345.com.example.app"],
        [Array(repeating: "AB", count: 32).joined(separator: ":")], ["com.example.app"], "https://api.example",
    ] }

    /// What a section requires beside any one key (SMTP needs a server and a sender).
    static var requiredBeside: [String: [String: Any]] { ["mail": ["url": "smtp://127.0.0.1:25", "from": "id@example.com", "username": "u", "password": "p"]] }

    /// A configuration holding `key` with `value`, around a minimal client for the `clients[]…` keys.
    static func configuration(_ key: String, _ value: Any) -> [String: Any] {
        let parts = key.split(separator: ".").map(String.init)
        if parts[0] == "clients[]" {
            var client: [String: Any] = ["id": "doc", "type": "confidential", "secret_env": "DOC_SECRET",
                                         "redirect_uris": ["https://app.example/cb"]]
            if parts.count == 3, parts[1] == "native" {
                var native: [String: Any] = ["callback_schemes": ["docapp"]]
                native[parts[2]] = value
                client["native"] = native
            } else if parts.count == 2 {
                client[parts[1]] = value
            }
            return ["clients": [client]]
        }
        guard parts.count >= 2 else { return [key: value] }
        var inner: [String: Any] = Self.requiredBeside[parts[0]] ?? [:]
        inner[parts.last!] = value
        for part in parts.dropFirst().dropLast().reversed() { inner = [part: inner] }
        return [parts[0]: inner]
    }

    @Test func everyDocumentedKeyIsAccepted() throws {
        let keys = try Self.documentedKeys()
        for expected in ["clients[].native.callback_urls", "clients[].native.google_client_ids", "clients[].native.apple_app_ids",
                         "clients[].native.android_cert_fingerprints", "http.trusted_proxies", "rate_limits.admin_api_per_client",
                         "http.hsts_include_subdomains", "access_log"] {
            #expect(keys[expected] != nil, "\(expected) is read out of the docs")
        }
        for (key, origin) in keys.sorted(by: { $0.key < $1.key }) {
            var refusals: [String] = []
            let accepted = try Self.candidates.contains { value in
                let (path, environment) = try Self.write(Self.configuration(key, value))
                do {
                    _ = try GatehouseConfiguration.load(environment: environment.merging(["DOC_SECRET": SecureRandom.token()]) { $1 }, configPath: path)
                    return true
                } catch let error as ConfigurationError {
                    refusals.append(error.description)
                    return false
                }
            }
            #expect(accepted, "\(key) (documented in \(origin)) is refused with every value: \(refusals.prefix(3))")
        }
    }
}
