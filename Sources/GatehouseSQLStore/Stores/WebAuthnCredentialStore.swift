import Foundation
import GatehouseStore

/// WebAuthn credentials and user handles, on either backend.
struct SQLWebAuthnCredentialStore<Database: SQLDatabase>: WebAuthnCredentialStore {
    let database: Database
    private let lockUserSQL: String

    init(database: Database) {
        self.database = database
        lockUserSQL = "SELECT password_hash IS NOT NULL FROM users WHERE id = ?\(database.dialect.forUpdate)"
    }

    func create(_ credential: WebAuthnCredential) async throws {
        _ = try await database.write { db in
            try db.run(WebAuthnCredentialSQL.insert, [
                credential.credentialID, credential.userID, credential.publicKey, credential.algorithm,
                Int64(credential.signCount), credential.backupEligible, credential.backedUp, credential.userVerified,
                credential.aaguid, credential.attestation, StoredStringList.encode(credential.transports), credential.name,
                credential.createdAt, credential.lastUsedAt,
            ])
        }
    }

    func credential(id: [UInt8]) async throws -> WebAuthnCredential? {
        let backend = database.dialect.name
        return try await database.read { db in
            try db.queryOne(WebAuthnCredentialSQL.byID, [id]) { try Self.decode($0, backend: backend) }
        }
    }

    func credentials(userID: String) async throws -> [WebAuthnCredential] {
        let backend = database.dialect.name
        return try await database.read { db in
            try db.query(WebAuthnCredentialSQL.byUser, [userID]) { try Self.decode($0, backend: backend) }
        }
    }

    func recordUse(credentialID: [UInt8], previousSignCount: UInt32, signCount: UInt32, backedUp: Bool, at: Date) async throws -> Bool {
        try await database.write { db in
            try db.run(WebAuthnCredentialSQL.recordUse, [Int64(signCount), backedUp, at, credentialID, Int64(previousSignCount)])
        } == 1
    }

    func rename(credentialID: [UInt8], userID: String, name: String) async throws -> Bool {
        try await database.write { db in try db.run(WebAuthnCredentialSQL.rename, [name, credentialID, userID]) } == 1
    }

    func deleteUnlessLast(credentialID: [UInt8], userID: String) async throws -> CredentialRemoval {
        // The same shape as unlinking a provider identity: lock the user row, count every way in, delete.
        try await database.transaction { [lockUserSQL] db in
            guard let hasPassword = try db.queryOne(lockUserSQL, [userID], { $0.bool(0) }) else { return .notFound }
            guard try db.queryOne(WebAuthnCredentialSQL.owned, [credentialID, userID], { _ in true }) == true else { return .notFound }
            let others = try db.queryOne(WebAuthnCredentialSQL.otherWaysIn, [userID, userID]) { $0.int(0) } ?? 0
            guard others + (hasPassword ? 1 : 0) > 1 else { return .lastMethod }
            let credentials = try db.queryOne(WebAuthnCredentialSQL.countOfUser, [userID]) { $0.int(0) } ?? 0
            if credentials == 1, try db.queryOne(WebAuthnCredentialSQL.secondStepOn, [userID], { _ in true }) == true {
                // The last key of a security-key second step: refused unless an authenticator app remains, and then
                // the choice goes with the key (a later key does not silently turn it back on).
                guard try db.queryOne(WebAuthnCredentialSQL.totpConfirmed, [userID], { _ in true }) == true else { return .lastSecondFactor }
                _ = try db.run(WebAuthnCredentialSQL.secondStepOff, [userID])
            }
            _ = try db.run(WebAuthnCredentialSQL.delete, [credentialID, userID])
            return .deleted
        }
    }

    func deleteAll(userID: String) async throws -> Int {
        try await database.write { db in try db.run(WebAuthnCredentialSQL.deleteAll, [userID]) }
    }

    func userHandle(userID: String, proposed: [UInt8]) async throws -> [UInt8] {
        try await database.transaction { db in
            try db.run(WebAuthnCredentialSQL.insertHandle, [userID, proposed])
            guard let handle = try db.queryOne(WebAuthnCredentialSQL.handleOfUser, [userID], { $0.blob(0) }) else {
                throw StoreError.notFound(detail: "user \(userID)")
            }
            return handle
        }
    }

    func userID(handle: [UInt8]) async throws -> String? {
        try await database.read { db in try db.queryOne(WebAuthnCredentialSQL.userOfHandle, [handle]) { $0.text(0) } }
    }

    private static func decode(_ row: some SQLRow, backend: String) throws -> WebAuthnCredential {
        WebAuthnCredential(
            credentialID: row.blob(WebAuthnCredentialColumn.credentialId), userID: row.text(WebAuthnCredentialColumn.userId),
            publicKey: row.blob(WebAuthnCredentialColumn.publicKey), algorithm: Int(row.int(WebAuthnCredentialColumn.algorithm)),
            signCount: UInt32(clamping: row.int(WebAuthnCredentialColumn.signCount)),
            backupEligible: row.bool(WebAuthnCredentialColumn.backupEligible), backedUp: row.bool(WebAuthnCredentialColumn.backedUp),
            userVerified: row.bool(WebAuthnCredentialColumn.userVerified), aaguid: row.blob(WebAuthnCredentialColumn.aaguid),
            attestation: row.text(WebAuthnCredentialColumn.attestation),
            transports: try StoredStringList.decode(row.text(WebAuthnCredentialColumn.transports),
                                                    column: "webauthn_credentials.transports", backend: backend),
            name: row.text(WebAuthnCredentialColumn.name), createdAt: row.date(WebAuthnCredentialColumn.createdAt),
            lastUsedAt: row.optionalDate(WebAuthnCredentialColumn.lastUsedAt))
    }
}

private enum WebAuthnCredentialColumn: Int32, SQLColumn {
    case credentialId, userId, publicKey, algorithm, signCount, backupEligible, backedUp, userVerified, aaguid, attestation,
         transports, name, createdAt, lastUsedAt
}

private enum WebAuthnCredentialSQL {
    static let columns = WebAuthnCredentialColumn.list()
    static let insert = "INSERT INTO webauthn_credentials (\(columns)) VALUES (\(WebAuthnCredentialColumn.placeholders))"
    static let byID = "SELECT \(columns) FROM webauthn_credentials WHERE credential_id = ?"
    static let byUser = "SELECT \(columns) FROM webauthn_credentials WHERE user_id = ? ORDER BY created_at, credential_id"
    static let recordUse = """
        UPDATE webauthn_credentials SET sign_count = ?, backed_up = ?, last_used_at = ? WHERE credential_id = ? AND sign_count = ?
        """
    static let rename = "UPDATE webauthn_credentials SET name = ? WHERE credential_id = ? AND user_id = ?"
    static let delete = "DELETE FROM webauthn_credentials WHERE credential_id = ? AND user_id = ?"
    static let deleteAll = "DELETE FROM webauthn_credentials WHERE user_id = ?"
    static let owned = "SELECT 1 FROM webauthn_credentials WHERE credential_id = ? AND user_id = ?"
    /// Credentials (this one included) plus linked identities.
    static let otherWaysIn = """
        SELECT (SELECT COUNT(*) FROM webauthn_credentials WHERE user_id = ?) + (SELECT COUNT(*) FROM external_identities WHERE user_id = ?)
        """
    static let countOfUser = "SELECT COUNT(*) FROM webauthn_credentials WHERE user_id = ?"
    static let secondStepOn = "SELECT 1 FROM webauthn_second_steps WHERE user_id = ?"
    static let secondStepOff = "DELETE FROM webauthn_second_steps WHERE user_id = ?"
    static let totpConfirmed = "SELECT 1 FROM totp_factors WHERE user_id = ? AND confirmed_at IS NOT NULL"
    static let insertHandle = "INSERT INTO webauthn_user_handles (user_id, handle) VALUES (?, ?) ON CONFLICT (user_id) DO NOTHING"
    static let handleOfUser = "SELECT handle FROM webauthn_user_handles WHERE user_id = ?"
    static let userOfHandle = "SELECT user_id FROM webauthn_user_handles WHERE handle = ?"
}

/// Outstanding WebAuthn challenges, on either backend.
struct SQLWebAuthnChallengeStore<Database: SQLDatabase>: WebAuthnChallengeStore {
    let database: Database

    func create(_ challenge: WebAuthnChallenge) async throws {
        _ = try await database.write { db in
            try db.run(WebAuthnChallengeSQL.insert, [
                challenge.challengeHash, challenge.ceremony.rawValue, challenge.userID, challenge.flowBinding,
                challenge.requireUserVerification, challenge.createdAt, challenge.expiresAt,
            ])
        }
    }

    func consume(challengeHash: TokenHash, now: Date) async throws -> WebAuthnChallenge? {
        // Deleted on use, like flow states: a concurrent second DELETE finds no row.
        try await database.write { db in
            try db.queryOne(WebAuthnChallengeSQL.consume, [challengeHash, now]) { row -> WebAuthnChallenge? in
                guard let ceremony = WebAuthnChallenge.Ceremony(rawValue: row.text(WebAuthnChallengeColumn.ceremony)) else { return nil }
                return WebAuthnChallenge(
                    challengeHash: row.tokenHash(WebAuthnChallengeColumn.challengeHash), ceremony: ceremony,
                    userID: row.optionalText(WebAuthnChallengeColumn.userId), flowBinding: row.tokenHash(WebAuthnChallengeColumn.flowBinding),
                    requireUserVerification: row.bool(WebAuthnChallengeColumn.requireUserVerification),
                    createdAt: row.date(WebAuthnChallengeColumn.createdAt), expiresAt: row.date(WebAuthnChallengeColumn.expiresAt))
            } ?? nil
        }
    }

    func purgeExpired(now: Date, limit: Int) async throws -> Int {
        try await webAuthnChallengePurge.run(on: database, cutoff: now, limit: limit)
    }
}

private enum WebAuthnChallengeColumn: Int32, SQLColumn {
    case challengeHash, ceremony, userId, flowBinding, requireUserVerification, createdAt, expiresAt
}

private enum WebAuthnChallengeSQL {
    static let columns = WebAuthnChallengeColumn.list()
    static let insert = "INSERT INTO webauthn_challenges (\(columns)) VALUES (\(WebAuthnChallengeColumn.placeholders))"
    static let consume = "DELETE FROM webauthn_challenges WHERE challenge_hash = ? AND expires_at > ? RETURNING \(columns)"
}

private let webAuthnChallengePurge = SQLBatchPurge(table: "webauthn_challenges", key: "challenge_hash", condition: "expires_at <= ?")
