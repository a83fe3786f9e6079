import Foundation
import GatehouseHTTP
import GatehouseServer
import GatehouseTesting
import Testing

/// Gatehouse's path configuration rules under Hotwire Native's own matching (hotwire-native-ios,
/// `Source/Turbo/Path Configuration/`): `PathConfiguration.properties(for: URL)` matches "path?query" when
/// `matchQueryStrings` is on (the default), each rule's patterns through `NSRegularExpression.numberOfMatches` —
/// unanchored — and every matching rule's properties are merged in order, later ones winning.
@Suite struct PathConfigurationTests {
    static let publicURL = "https://app.example/auth"

    /// hotwire-native-ios's lookup, as its source does it.
    static func properties(_ rules: [[String: Any]], for url: String) -> [String: Any] {
        let parts = URLComponents(string: url)!
        let path = parts.query.map { "\(parts.path)?\($0)" } ?? parts.path
        var merged: [String: Any] = [:]
        for rule in rules {
            let patterns = rule["patterns"] as? [String] ?? []
            let matches = patterns.contains { pattern in
                guard let regex = try? NSRegularExpression(pattern: pattern) else { return false }
                return regex.numberOfMatches(in: path, range: NSRange(path.startIndex..<path.endIndex, in: path)) > 0
            }
            if matches { merged.merge(rule["properties"] as? [String: Any] ?? [:]) { $1 } }
        }
        return merged
    }

    static func rules(_ gatehouse: TestGatehouse, _ path: String) async throws -> (document: [String: Any], rules: [[String: Any]]) {
        let response = try await InProcessClient(gatehouse.app.pipeline).get(path)
        #expect(response.status == 200 && response.headers["Content-Type"]?.hasPrefix("application/json") == true)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        return (document, try #require(document["rules"] as? [[String: Any]]))
    }

    static func oneOrigin() async throws -> TestGatehouse {
        try await TestGatehouse.make { configuration in
            configuration = try! GatehouseConfiguration.load(environment: ["GATEHOUSE_PUBLIC_URL": publicURL])
        }
    }

    @Test func rulesMatchWithQueryStringsAndOnlyGatehousesPaths() async throws {
        let gatehouse = try await Self.oneOrigin()
        let (_, rules) = try await Self.rules(gatehouse, "/auth/configurations/ios_v1.json")
        func context(_ url: String) -> String? { Self.properties(rules, for: url)["context"] as? String }
        func presentation(_ url: String) -> String? { Self.properties(rules, for: url)["presentation"] as? String }
        // Sign-in pages carry return_to: the rule still matches them.
        #expect(context("https://app.example/auth/sign-in?return_to=%2Fauth%2Foauth%2Fauthorize%3Fclient_id%3Dx") == "modal")
        #expect(context("https://app.example/auth/sign-in") == "modal")
        #expect(context("https://app.example/auth/sign-up?return_to=%2F") == "modal")
        #expect(context("https://app.example/auth/password/reset?token=abc") == "modal")
        // The authorize the component continues after native Apple or Google: never a modal, it replaces the screen.
        let authorize = "https://app.example/auth/oauth/authorize?client_id=example-rails&redirect_uri=x&scope=openid&state=s"
        #expect(context(authorize) == "default" && presentation(authorize) == "replace")
        #expect(context("https://app.example/auth/native/redeem?token=t") == "default")
        #expect(presentation("https://app.example/auth/native/redeem?token=t") == "replace")
        #expect(Self.properties(rules, for: "https://app.example/auth/account?notice=identity-linked")["pull_to_refresh_enabled"] as? Bool == true)
        // The product's own pages named like Gatehouse's are not Gatehouse's: the catch-all default only.
        #expect(context("https://app.example/sign-in?next=%2F") == "default")
        #expect(context("https://app.example/login/gatehouse/callback?code=c") == "default")
        #expect(presentation("https://app.example/oauth/authorize?x=1") == nil)
    }

    @Test func theMergeableRulesAddOnlyGatehousesPathsToTheProductsFile() async throws {
        let gatehouse = try await Self.oneOrigin()
        let (document, gatehouseRules) = try await Self.rules(gatehouse, "/auth/configurations/ios_v1_rules.json")
        #expect(document["settings"] == nil)
        #expect(!gatehouseRules.contains { ($0["patterns"] as? [String])?.contains(".*") == true }, "no catch-all")
        // The product's file: its own rules first, Gatehouse's appended.
        let product: [[String: Any]] = [
            ["patterns": [".*"], "properties": ["context": "default", "pull_to_refresh_enabled": true]],
            ["patterns": ["/new$", "/edit$"], "properties": ["context": "modal"]],
        ]
        let merged = product + gatehouseRules
        #expect(Self.properties(merged, for: "https://app.example/posts/new")["context"] as? String == "modal")
        #expect(Self.properties(merged, for: "https://app.example/posts?page=2")["context"] as? String == "default")
        #expect(Self.properties(merged, for: "https://app.example/auth/sign-in?return_to=%2F")["context"] as? String == "modal")
        #expect(Self.properties(merged, for: "https://app.example/auth/oauth/authorize?client_id=x")["context"] as? String == "default")
        let (_, android) = try await Self.rules(gatehouse, "/auth/configurations/android_v1_rules.json")
        #expect(android.allSatisfy { ($0["properties"] as? [String: Any])?["uri"] as? String == "hotwire://fragment/web" })
    }

    @Test func onItsOwnHostTheRulesStartAtTheRoot() async throws {
        let gatehouse = try await TestGatehouse.make()
        let (_, rules) = try await Self.rules(gatehouse, "/configurations/ios_v1_rules.json")
        #expect(Self.properties(rules, for: "https://id.example/sign-in?return_to=%2F")["context"] as? String == "modal")
        #expect(Self.properties(rules, for: "https://id.example/oauth/authorize?client_id=x")["context"] as? String == "default")
        #expect(Self.properties(rules, for: "https://id.example/docs/sign-in")["context"] == nil)
    }
}
