import Foundation
import GatehouseStore
import Testing

/// The one-statement reads behind session cookies and Bearer calls answer exactly what the
/// per-aggregate stores answer, on both backends (the default composition is the reference).
@Suite("HotReadStore conformance")
struct HotReadStoreTests {
    @Test(arguments: StoreBackends.all)
    func sessionWithUserMatchesTheStores(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            let user = User.fixture("u1")
            try await db.users.create(user)
            let session = Session.fixture("s1", userId: "u1", created: 100)
            try await db.sessions.create(session)
            let composed = ComposedHotReads(database: db)
            let now = TestTime.at(200)

            let found = try await db.hotReads.sessionWithUser(idHash: session.idHash, now: now)
            #expect(found == SessionWithUser(session: session, user: user))
            #expect(try await composed.sessionWithUser(idHash: session.idHash, now: now) == found)
            // Unknown, idle-expired, absolutely expired: nil, like findValid.
            #expect(try await db.hotReads.sessionWithUser(idHash: testHash("nope"), now: now) == nil)
            #expect(try await db.hotReads.sessionWithUser(idHash: session.idHash, now: TestTime.at(100 + 1800)) == nil)
            var long = Session.fixture("s2", userId: "u1", created: 100)
            long.idleExpiresAt = TestTime.at(200_000)
            try await db.sessions.create(long)
            #expect(try await db.hotReads.sessionWithUser(idHash: long.idHash, now: TestTime.at(100 + 86_400)) == nil)
            // A disabled user still comes back (the caller refuses it); a deleted one takes its sessions along.
            let disabled = try await db.users.update(id: "u1", [.disabled(true)], at: now)
            #expect(try await db.hotReads.sessionWithUser(idHash: session.idHash, now: now)?.user == disabled)
            _ = try await db.users.delete(id: "u1")
            #expect(try await db.hotReads.sessionWithUser(idHash: session.idHash, now: now) == nil)
        }
    }

    @Test(arguments: StoreBackends.all)
    func sessionWithUserAndProvidersListsEachLinkedProviderOnce(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            let user = User.fixture("u1")
            try await db.users.create(user)
            try await db.users.create(.fixture("u2"))
            let session = Session.fixture("s1", userId: "u1", created: 100)
            try await db.sessions.create(session)
            let now = TestTime.at(200)
            #expect(try await db.hotReads.sessionWithUserAndProviders(idHash: session.idHash, now: now)
                    == SessionWithUser(session: session, user: user, providers: []))
            for (provider, subject, owner) in [("github", "1", "u1"), ("apple", "2", "u1"), ("github", "3", "u1"), ("google", "4", "u2")] {
                try await db.externalIdentities.create(ExternalIdentity(provider: provider, subject: subject, userId: owner,
                                                                        createdAt: TestTime.at(150)))
            }
            let found = try await db.hotReads.sessionWithUserAndProviders(idHash: session.idHash, now: now)
            #expect(found == SessionWithUser(session: session, user: user, providers: ["apple", "github"]))
            #expect(try await ComposedHotReads(database: db).sessionWithUserAndProviders(idHash: session.idHash, now: now) == found)
            #expect(try await db.hotReads.sessionWithUserAndProviders(idHash: session.idHash, now: TestTime.at(100 + 1800)) == nil)
        }
    }

    @Test(arguments: StoreBackends.all)
    func bearerSubjectSeesRevocationOfTheTokenAndOfItsFamily(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            let user = User.fixture("u1")
            try await db.users.create(user)
            let reads = db.hotReads
            let expires = TestTime.at(3600)
            #expect(try await reads.bearerSubject(userId: "u1", revocationKeys: ["j1", "fid:f1"])
                    == BearerSubject(revoked: false, user: user))
            #expect(try await reads.bearerSubject(userId: "u1", revocationKeys: ["j1"]) == BearerSubject(revoked: false, user: user))
            #expect(try await reads.bearerSubject(userId: "ghost", revocationKeys: ["j1"]) == BearerSubject(revoked: false, user: nil))

            try await db.revokedAccessTokens.revoke(jti: "j1", expiresAt: expires)
            #expect(try await reads.bearerSubject(userId: "u1", revocationKeys: ["j1", "fid:f1"]).revoked)
            #expect(try await reads.bearerSubject(userId: "u1", revocationKeys: ["j1"]).revoked)
            #expect(try await reads.bearerSubject(userId: "ghost", revocationKeys: ["j1"]).revoked)
            #expect(try await reads.bearerSubject(userId: "u1", revocationKeys: ["j2", "fid:f2"]) == BearerSubject(revoked: false, user: user))

            try await db.revokedAccessTokens.revoke(jti: "fid:f2", expiresAt: expires)
            #expect(try await reads.bearerSubject(userId: "u1", revocationKeys: ["j2", "fid:f2"]).revoked)
            #expect(try await reads.bearerSubject(userId: "u1", revocationKeys: ["j3"]).productUserId == nil)
            // The composition answers the same.
            let composed = ComposedHotReads(database: db)
            for keys in [["j1"], ["j2", "fid:f2"], ["j3", "fid:f3"]] {
                #expect(try await composed.bearerSubject(userId: "u1", revocationKeys: keys)
                        == reads.bearerSubject(userId: "u1", revocationKeys: keys))
            }
        }
    }

    @Test(arguments: StoreBackends.all)
    func bearerSubjectCarriesTheProductUserIdInTheSameRead(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            _ = try await db.userImports.importBatch([UserImportStoreTests.row(1, "a@example.test", external: "rails-42"),
                                                      UserImportStoreTests.row(2, "b@example.test")], at: TestTime.at(10))
            let reads = db.hotReads
            #expect(try await reads.bearerSubject(userId: "new1", revocationKeys: ["j1"]).productUserId == "rails-42")
            #expect(try await reads.bearerSubject(userId: "new2", revocationKeys: ["j1"]).productUserId == nil)
            #expect(try await reads.bearerSubject(userId: "ghost", revocationKeys: ["j1"]).productUserId == nil)
            let composed = ComposedHotReads(database: db)
            for id in ["new1", "new2", "ghost"] {
                #expect(try await composed.bearerSubject(userId: id, revocationKeys: ["j1"])
                        == reads.bearerSubject(userId: id, revocationKeys: ["j1"]))
            }
        }
    }

    @Test(arguments: StoreBackends.all)
    func accountOverviewIsTheFourListsOfTheStores(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            try await createOAuthParties(db)
            let now = TestTime.at(500)
            // Nothing yet: four empty lists, and the session read still finds the session.
            let current = Session.fixture("s1", userId: "u1", created: 100)
            try await db.sessions.create(current)
            #expect(try await db.hotReads.accountOverview(userId: "u1", now: now)
                    == AccountOverview(sessions: [current], identities: [], consents: [], grants: []))

            var seenLater = Session.fixture("s2", userId: "u1", created: 50)
            seenLater.lastSeenAt = TestTime.at(300)
            try await db.sessions.create(seenLater)
            var expired = Session.fixture("s3", userId: "u1", created: 0)
            expired.idleExpiresAt = TestTime.at(400)
            try await db.sessions.create(expired)
            try await db.sessions.create(.fixture("s4", userId: "u2", created: 100))
            for (provider, subject, owner) in [("github", "1", "u1"), ("apple", "2", "u1"), ("google", "3", "u2")] {
                try await db.externalIdentities.create(ExternalIdentity(provider: provider, subject: subject, userId: owner,
                                                                        email: "\(subject)@relay.example", createdAt: TestTime.at(150)))
            }
            try await db.consents.save(Consent(userId: "u1", clientId: "c2", scopes: ["openid", "profile"], grantedAt: TestTime.at(120)))
            try await db.consents.save(Consent(userId: "u2", clientId: "c1", scopes: ["openid"], grantedAt: TestTime.at(120)))
            try await db.refreshTokens.create(.fixture("r1", family: "f1", scope: "openid offline_access", created: 200))
            try await db.refreshTokens.create(.fixture("r2", family: "f2", clientId: "c2", created: 210))
            try await db.refreshTokens.create(.fixture("r3", family: "f3", userId: "u2", created: 220))

            let expected = AccountOverview(
                sessions: try await db.sessions.list(userId: "u1", now: now),
                identities: try await db.externalIdentities.list(userId: "u1"),
                consents: try await db.consents.list(userId: "u1"),
                grants: try await db.refreshTokens.activeGrants(userId: "u1", now: now))
            // The reference is what the page showed before; make sure it is not trivially empty.
            #expect(expected.sessions.map(\.idHash) == [seenLater.idHash, current.idHash])
            #expect(expected.identities.map(\.provider) == ["apple", "github"])
            #expect(expected.consents.map(\.clientId) == ["c2"])
            #expect(expected.grants.map(\.clientId) == ["c1", "c2"])
            #expect(try await db.hotReads.accountOverview(userId: "u1", now: now) == expected)
            #expect(try await ComposedHotReads(database: db).accountOverview(userId: "u1", now: now) == expected)

            let found = try await db.hotReads.sessionWithAccountOverview(idHash: current.idHash, now: now)
            #expect(found == SessionWithUser(session: current, user: .fixture("u1"), overview: expected))
            #expect(try await ComposedHotReads(database: db).sessionWithAccountOverview(idHash: current.idHash, now: now) == found)
            // An unknown or expired session reads nothing else.
            #expect(try await db.hotReads.sessionWithAccountOverview(idHash: testHash("nope"), now: now) == nil)
            #expect(try await db.hotReads.sessionWithAccountOverview(idHash: expired.idHash, now: now) == nil)
        }
    }

    @Test func replacingATouchedSessionKeepsTheListOrder() {
        let a = Session.fixture("a", userId: "u1", created: 100), b = Session.fixture("b", userId: "u1", created: 200)
        var seenB = b
        seenB.lastSeenAt = TestTime.at(250)
        let overview = AccountOverview(sessions: [seenB, a], identities: [], consents: [], grants: [])
        var touched = a
        touched.lastSeenAt = TestTime.at(300)
        #expect(overview.replacing(touched).sessions == [touched, seenB])
        // A session that is not listed changes nothing.
        #expect(overview.replacing(.fixture("c", userId: "u1", created: 400)) == overview)
        // Same last-seen time: by id hash, as the store orders.
        var tie = a
        tie.lastSeenAt = seenB.lastSeenAt
        let tied = overview.replacing(tie).sessions.map(\.idHash)
        #expect(tied == [a.idHash, b.idHash].sorted { $0.bytes.lexicographicallyPrecedes($1.bytes) })
    }
}
