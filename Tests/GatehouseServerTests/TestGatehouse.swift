import Foundation
import GatehouseCrypto
import GatehouseDemo
import GatehouseHTTP
import GatehouseIdentity
import GatehouseServer
import GatehouseSQLite
import GatehouseStore
import GatehouseTesting
import Synchronization
import Testing

/// A movable clock for tests of expiry and rate-limit windows.
final class TestClock: Sendable {
    private let current = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
    var now: Date { current.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
    var identityClock: IdentityClock { IdentityClock { [self] in self.now } }
}

/// Records mail instead of sending it.
final class RecordingMailer: Mailer {
    let sent = Recorder<MailMessage>()
    func send(_ message: MailMessage) async throws { sent.append(message) }

    /// ``lastLink(to:containing:)`` once the mail arrived (mail goes out in the background), or nil after ~2 s.
    func link(to address: String, containing fragment: String) async -> String? {
        for _ in 0..<200 {
            if let link = lastLink(to: address, containing: fragment) { return link }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }

    /// The first link to this server in the newest message to `address`.
    func lastLink(to address: String, containing fragment: String) -> String? {
        guard let message = sent.all.last(where: { $0.to == address }) else { return nil }
        return message.textBody.split(whereSeparator: \.isWhitespace).map(String.init)
            .first { $0.contains(fragment) }
            .map { $0.replacingOccurrences(of: "http://127.0.0.1:8080", with: "") }
    }
}

/// Gatehouse in-process on an in-memory SQLite database with cheap password hashing.
struct TestGatehouse {
    let app: GatehouseApp
    let database: any GatehouseDatabase
    let clock: TestClock
    let mailer: RecordingMailer
    let log: Recorder<String>

    static func make(_ tweak: (inout GatehouseConfiguration) -> Void = { _ in }) async throws -> TestGatehouse {
        var configuration = try GatehouseConfiguration.load(environment: [:])
        configuration.passwordHashing = Argon2idParameters(memoryBytes: 1 << 20, iterations: 1)
        configuration.signingKeyGenerator = TestSigningKeys.generate
        tweak(&configuration)
        let database = try await SQLiteDatabase.open(url: "sqlite::memory:")
        _ = try await database.migrate()
        let clock = TestClock(), mailer = RecordingMailer(), log = Recorder<String>()
        let app = GatehouseApp(configuration: configuration, database: database,
                               secrets: ServerSecrets(master: SecureRandom.bytes(32)),
                               log: ServerLog(sink: { log.append($0) }), accessLogSink: { _ in }, mailer: mailer,
                               clock: clock.identityClock, demoProviders: SimulatedDemoProviders())
        try await app.services.keys.ensureSigningKey()
        return TestGatehouse(app: app, database: database, clock: clock, mailer: mailer, log: log)
    }

    func browser(ip: String = "127.0.0.1") -> BrowserLikeClient {
        BrowserLikeClient(InProcessClient(app.pipeline, remoteAddress: ip))
    }

    /// Signs up through the page, confirms the address with the mailed link (unless `verify` is false),
    /// signs in through the page and returns the signed-in browser. Sign-up itself signs nobody in: it
    /// answers the same whether or not the address has an account.
    func signedUpBrowser(email: String = "ada@example.com", password: String = "correct horse battery",
                         ip: String = "127.0.0.1", verify: Bool = true) async throws -> BrowserLikeClient {
        let browser = browser(ip: ip)
        let response = try await browser.submit("/sign-up", to: "/sign-up", [("email", email), ("password", password), ("name", "Ada")])
        precondition(response.status == 303 && response.headers["Location"] == "/sign-up/check-email",
                     "sign-up failed: \(response.status) \(response.text)")
        let signIn = try await browser.submit("/sign-in", to: "/sign-in", [("email", email), ("password", password)])
        precondition(signIn.status == 303, "sign-in after sign-up failed: \(signIn.status) \(signIn.text)")
        if verify {
            guard let link = await mailer.link(to: email, containing: "/email/verify/") else { preconditionFailure("no verification mail") }
            // The link shows a page; its form, submitted in the creator's own session, confirms and keeps the password.
            let verified = try await browser.submit(link, to: link, [])
            precondition(verified.status == 303, "verification failed: \(verified.status)")
        }
        return browser
    }

    func auditTypes(email: String) async throws -> [String] {
        guard let user = try await database.users.find(email: email) else { return [] }
        return try await database.auditLog.list(userId: user.id, limit: 100).map(\.event.type)
    }
}

/// One RSA key for every in-process server of the test run (2048-bit generation costs ~0.2 s of CPU
/// each); ES256 keys stay fresh. Tests of the key ring itself generate real keys.
enum TestSigningKeys {
    static let rsa: GatehouseCrypto.SigningKey = try! GatehouseCrypto.SigningKey.generate(.rs256)

    @Sendable static func generate(_ algorithm: JWSAlgorithm) throws -> GatehouseCrypto.SigningKey {
        algorithm == .rs256 ? rsa : try GatehouseCrypto.SigningKey.generate(algorithm)
    }
}
