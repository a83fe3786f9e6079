import Foundation
import GatehouseCrypto
import GatehouseDemo
import GatehouseHTTP
import GatehouseIdentity
import GatehouseProviderSimulator
import GatehouseProviders
import GatehouseServer
import GatehouseSQLite
import GatehouseStore
import GatehouseTesting
import Synchronization

final class TestClock: Sendable {
    private let current = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
    var now: Date { current.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
}

/// Faults a test injects between Gatehouse and the simulated providers.
final class Faults: Sendable {
    struct State: Sendable {
        var rewrite: (@Sendable (ProviderHTTPRequest, ProviderHTTPResponse) -> ProviderHTTPResponse)?
        var delay: Duration?
        var downPaths: [String] = []
        /// Answered 200 with an empty body without reaching the provider (an upstream that says yes and does nothing).
        var fakeOKPaths: [String] = []
    }
    let state = Mutex(State())
    let requests = Mutex<[String]>([])
}

struct FaultyTransport: ProviderTransport {
    let inner: any ProviderTransport
    let faults: Faults

    func send(_ request: ProviderHTTPRequest) async throws -> ProviderHTTPResponse {
        let state = faults.state.withLock { $0 }
        faults.requests.withLock { $0.append(request.url.path) }
        if let delay = state.delay { try await Task.sleep(for: delay) }
        if state.downPaths.contains(where: { request.url.path.hasSuffix($0) }) {
            return ProviderHTTPResponse(status: 503, body: Array("down".utf8))
        }
        if state.fakeOKPaths.contains(where: { request.url.path.hasSuffix($0) }) {
            return ProviderHTTPResponse(status: 200, body: [])
        }
        let response = try await inner.send(request)
        return state.rewrite?(request, response) ?? response
    }
}

/// Gatehouse in demo mode (simulator mounted, Apple/Google/GitHub enabled) in-process on in-memory SQLite.
struct ProviderHarness {
    static let base = "http://127.0.0.1:8080"
    let app: GatehouseApp
    let database: any GatehouseDatabase
    let clock: TestClock
    let faults: Faults
    var simulator: ProviderSimulator { (app.providers.simulator as! MountedSimulator).simulator }

    static func make(mailer: (any Mailer)? = nil,
                     _ tweak: @escaping (inout GatehouseConfiguration) -> Void = { _ in }) async throws -> ProviderHarness {
        var configuration = try GatehouseConfiguration.load(environment: ["GATEHOUSE_DEMO": "1"])
        configuration.passwordHashing = Argon2idParameters(memoryBytes: 1 << 20, iterations: 1)
        configuration.providers.timeoutSeconds = 1
        configuration.signingKeyGenerator = SharedRSAKey.generate
        tweak(&configuration)
        let database = try await SQLiteDatabase.open(url: "sqlite::memory:")
        _ = try await database.migrate()
        let clock = TestClock(), faults = Faults()
        let app = GatehouseApp(configuration: configuration, database: database, secrets: ServerSecrets(master: SecureRandom.bytes(32)),
                               log: ServerLog(sink: { _ in }), accessLogSink: { _ in }, mailer: mailer, clock: IdentityClock { clock.now },
                               wrapProviderTransport: { FaultyTransport(inner: $0, faults: faults) }, demoProviders: SimulatedDemoProviders())
        return ProviderHarness(app: app, database: database, clock: clock, faults: faults)
    }

    func browser() -> BrowserLikeClient { BrowserLikeClient(InProcessClient(app.pipeline)) }

    static func path(_ location: String?) -> String {
        guard let location else { return "" }
        return location.hasPrefix(base) ? String(location.dropFirst(base.count)) : location
    }

    /// Runs a whole sign-in: button → provider picker → callback → finish. Returns the callback's and the
    /// finish step's responses (the latter nil when the callback already failed).
    @discardableResult
    func signIn(_ provider: String, with browser: BrowserLikeClient, email: String = "ada@example.com", name: String = "Ada Lovelace",
                picker extra: [(String, String)] = [], cancel: Bool = false, link: Bool = false, from page: String = "/sign-in",
                tamperCallback: ([(String, String)]) -> [(String, String)] = { $0 }) async throws -> (callback: TestResponse, final: TestResponse) {
        let start = link ? try await browser.submit("/account", to: "/auth/\(provider)/link", [])
            : try await browser.submit(page, to: "/auth/\(provider)", [])
        guard start.status == 303 else { return (start, start) }
        let page = try await browser.get(Self.path(start.headers["Location"]))
        guard page.status == 200 else { return (page, page) }
        var fields = PageHTML.hiddenFields(page.text) + [("email", email), ("name", name), ("action", cancel ? "cancel" : "allow")] + extra
        fields = fields.filter { $0.0 != "csrf_token" }
        let answer = try await browser.post(PageHTML.formAction(page.text) ?? "", fields)
        let callback: TestResponse
        if answer.status == 200 {   // Apple: an auto-posting form to the callback
            callback = try await browser.post(Self.path(PageHTML.formAction(answer.text)), tamperCallback(PageHTML.hiddenFields(answer.text)))
        } else {
            callback = try await browser.get(Self.path(answer.headers["Location"]))
        }
        guard callback.status == 303, let next = callback.headers["Location"], next.contains("/finish") else { return (callback, callback) }
        return (callback, try await browser.get(next))
    }

    func users() async throws -> Int { try await database.users.count() }

    func auditCount() async throws -> Int { try await database.auditLog.count(userId: nil) }

    func identities(email: String) async throws -> [ExternalIdentity] {
        guard let user = try await database.users.find(email: email) else { return [] }
        return try await database.externalIdentities.list(userId: user.id)
    }
}

/// The shared form reader (GatehouseTesting), under the name these tests use.
typealias PageHTML = HTMLForm

/// One RSA signing key for every in-process server of the run: 2048-bit generation costs ~0.2 s of CPU on
/// the cooperative pool each time, which starves timing-sensitive tests on a loaded machine.
enum SharedRSAKey {
    static let key: GatehouseCrypto.SigningKey = try! GatehouseCrypto.SigningKey.generate(.rs256)

    @Sendable static func generate(_ algorithm: JWSAlgorithm) throws -> GatehouseCrypto.SigningKey {
        algorithm == .rs256 ? key : try GatehouseCrypto.SigningKey.generate(algorithm)
    }
}
