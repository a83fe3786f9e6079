import Foundation
import GatehouseCrypto
import GatehouseIdentity
import GatehouseStore
import Synchronization
import Testing

/// The password back-off counts per account *and* client, so a stranger's failures never lock the owner out.
@Suite struct SignInBackOffTests {
    final class Clock: Sendable {
        let now = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        var identity: IdentityClock { IdentityClock { [self] in now.withLock { $0 } } }
        func advance(_ seconds: TimeInterval) { now.withLock { $0 = $0.addingTimeInterval(seconds) } }
    }

    static func accounts(_ clock: Clock) async throws -> (AccountService, any GatehouseDatabase) {
        let database = try await SigningKeyRingTests.database()
        let hasher = PasswordHasher(parameters: Argon2idParameters(memoryBytes: 1 << 20, iterations: 1))
        let accounts = AccountService(database: database, hasher: hasher, audit: AuditTrail(store: database.auditLog),
                                      sessions: SessionService(database: database, clock: clock.identity), clock: clock.identity,
                                      deviceKey: Array(repeating: 7, count: 32))
        _ = try await accounts.createByOperator(email: "ada@example.com", password: "correct horse battery", displayName: nil, verified: true)
        return (accounts, database)
    }

    static func attempt(_ accounts: AccountService, _ password: String, ip: String, device: String? = nil) async -> String {
        do {
            _ = try await accounts.authenticate(email: "ada@example.com", password: password, context: ClientContext(ip: ip, userAgent: nil), deviceCookie: device)
            return "ok"
        } catch AccountError.rateLimited { return "limited" } catch { return "wrong" }
    }

    @Test func aStrangersFailuresHoldBackOnlyTheStranger() async throws {
        let clock = Clock()
        let (accounts, database) = try await Self.accounts(clock)
        for _ in 0..<5 { #expect(await Self.attempt(accounts, "guess", ip: "203.0.113.9") == "wrong") }
        #expect(await Self.attempt(accounts, "correct horse battery", ip: "203.0.113.9") == "limited")
        #expect(await Self.attempt(accounts, "correct horse battery", ip: "198.51.100.1") == "ok", "the owner elsewhere gets in")
        // A known device on the stranger's very address: exempt from the address's and the account's shared counters.
        let user = try #require(try await database.users.find(email: "ada@example.com"))
        let device = accounts.deviceCookie(for: user, existing: nil)
        #expect(await Self.attempt(accounts, "correct horse battery", ip: "203.0.113.9", device: device) == "ok")
    }

    @Test func manyAddressesFillTheSharedCounterButNotTheKnownDevice() async throws {
        let clock = Clock()
        let (accounts, database) = try await Self.accounts(clock)
        let user = try #require(try await database.users.find(email: "ada@example.com"))
        let device = accounts.deviceCookie(for: user, existing: nil)
        for index in 0..<50 { #expect(await Self.attempt(accounts, "guess", ip: "203.0.113.\(index)") == "wrong") }
        #expect(await Self.attempt(accounts, "correct horse battery", ip: "198.51.100.1") == "limited", "a new client waits")
        #expect(await Self.attempt(accounts, "correct horse battery", ip: "198.51.100.1", device: device) == "ok")
        // A device cookie of another account (or a forged one) exempts nothing.
        let other = try await accounts.createByOperator(email: "eve@example.com", password: "eves own password", displayName: nil, verified: true)
        #expect(await Self.attempt(accounts, "correct horse battery", ip: "198.51.100.1",
                                   device: accounts.deviceCookie(for: other, existing: nil)) == "limited")
        // Tamper with a character in the middle (the last one may carry only padding bits, and may already be "A").
        var tampered = Array(device)
        let middle = tampered.count / 2
        tampered[middle] = tampered[middle] == "A" ? "B" : "A"
        #expect(await Self.attempt(accounts, "correct horse battery", ip: "198.51.100.1", device: String(tampered)) == "limited")
    }

    @Test func aNewPasswordClearsTheAccountsCounters() async throws {
        let clock = Clock()
        let (accounts, database) = try await Self.accounts(clock)
        for _ in 0..<5 { _ = await Self.attempt(accounts, "guess", ip: "203.0.113.9") }
        #expect(await Self.attempt(accounts, "correct horse battery", ip: "203.0.113.9") == "limited")
        let user = try #require(try await database.users.find(email: "ada@example.com"))
        try await accounts.changePassword(userId: user.id, current: "correct horse battery", new: "a brand new password",
                                          keepingSessionToken: nil, context: ClientContext(ip: "198.51.100.1", userAgent: nil))
        #expect(await Self.attempt(accounts, "a brand new password", ip: "203.0.113.9") == "ok")
    }

    @Test func theDeviceCookieIsBoundToItsAccount() {
        let devices = KnownDevices(key: Array(repeating: 1, count: 32))
        let cookie = devices.cookieValue(email: "ada@example.com")
        let id = try? #require(devices.device(cookie, email: "ada@example.com"))
        #expect(id?.utf8.count == 22)
        #expect(devices.device(cookie, email: "eve@example.com") == nil)
        #expect(KnownDevices(key: Array(repeating: 2, count: 32)).device(cookie, email: "ada@example.com") == nil)
        #expect(devices.device(devices.cookieValue(email: "eve@example.com", existing: cookie), email: "eve@example.com") == id,
                "signing in to another account keeps the device id")
        for garbage in ["", ".", "x.y", cookie + "x", String(repeating: "A", count: 200)] {
            #expect(devices.device(garbage, email: "ada@example.com") == nil)
        }
    }
}
