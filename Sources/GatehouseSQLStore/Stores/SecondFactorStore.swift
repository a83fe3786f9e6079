import Foundation
import GatehouseStore

/// TOTP factors and recovery codes, on either backend.
struct SQLSecondFactorStore<Database: SQLDatabase>: SecondFactorStore {
    let database: Database
    private let lockUserSQL: String

    init(database: Database) {
        self.database = database
        lockUserSQL = "SELECT 1 FROM users WHERE id = ?\(database.dialect.forUpdate)"
    }

    func totp(userID: String) async throws -> TOTPFactor? {
        try await database.read { db in
            try db.queryOne(SecondFactorSQL.totpByUser, [userID]) { row in
                TOTPFactor(userID: row.text(TOTPColumn.userId), sealedSecret: row.blob(TOTPColumn.sealedSecret),
                           createdAt: row.date(TOTPColumn.createdAt), confirmedAt: row.optionalDate(TOTPColumn.confirmedAt),
                           lastStep: row.isNull(TOTPColumn.lastStep) ? nil : row.int64(TOTPColumn.lastStep))
            }
        }
    }

    func startTOTP(_ factor: TOTPFactor) async throws -> Bool {
        try await database.write { db in
            try db.run(SecondFactorSQL.startTOTP, [factor.userID, factor.sealedSecret, factor.createdAt])
        } == 1
    }

    func confirmTOTP(userID: String, step: Int64, at: Date) async throws -> Bool {
        try await database.write { db in try db.run(SecondFactorSQL.confirmTOTP, [at, step, userID]) } == 1
    }

    func acceptTOTPStep(userID: String, step: Int64) async throws -> Bool {
        try await database.write { db in try db.run(SecondFactorSQL.acceptStep, [step, userID, step]) } == 1
    }

    func deleteTOTP(userID: String) async throws -> Bool {
        try await database.write { db in try db.run(SecondFactorSQL.deleteTOTP, [userID]) } == 1
    }

    func replaceRecoveryCodes(userID: String, hashes: [TokenHash], at: Date) async throws {
        try await database.transaction { db in
            _ = try db.run(SecondFactorSQL.deleteCodes, [userID])
            for hash in hashes { _ = try db.run(SecondFactorSQL.insertCode, [hash, userID, at]) }
        }
    }

    func useRecoveryCode(userID: String, hash: TokenHash, at: Date) async throws -> Bool {
        try await database.write { db in try db.run(SecondFactorSQL.useCode, [at, hash, userID]) } == 1
    }

    func unusedRecoveryCodes(userID: String) async throws -> Int {
        try await database.read { db in try db.queryOne(SecondFactorSQL.countUnused, [userID]) { $0.int(0) } ?? 0 }
    }

    func deleteRecoveryCodes(userID: String) async throws -> Int {
        try await database.write { db in try db.run(SecondFactorSQL.deleteCodes, [userID]) }
    }

    func webAuthnSecondStep(userID: String) async throws -> Bool {
        try await database.read { db in try db.queryOne(SecondFactorSQL.webAuthnOn, [userID]) { _ in true } } == true
    }

    func enableWebAuthnSecondStep(userID: String, at: Date) async throws -> Bool {
        try await database.transaction { [lockUserSQL] db in
            // The user row locked as a credential's removal locks it: the last key cannot go between the check and the insert.
            guard try db.queryOne(lockUserSQL, [userID], { _ in true }) == true else { return false }
            _ = try db.run(SecondFactorSQL.enableWebAuthn, [userID, at, userID])
            return try db.queryOne(SecondFactorSQL.webAuthnOn, [userID]) { _ in true } == true
        }
    }

    func removeUnlessLast(_ factor: SecondFactorKind, userID: String) async throws -> SecondFactorRemoval {
        try await database.transaction { [lockUserSQL] db in
            guard try db.queryOne(lockUserSQL, [userID], { _ in true }) == true else { return .notEnrolled }
            let totp = try db.queryOne(SecondFactorSQL.totpConfirmed, [userID]) { _ in true } == true
            let webAuthn = try db.queryOne(SecondFactorSQL.webAuthnOn, [userID]) { _ in true } == true
            switch factor {
            case .totp:
                guard totp else { return .notEnrolled }
                guard webAuthn else { return .lastFactor }
                _ = try db.run(SecondFactorSQL.deleteTOTP, [userID])
            case .webAuthn:
                guard webAuthn else { return .notEnrolled }
                guard totp else { return .lastFactor }
                _ = try db.run(SecondFactorSQL.disableWebAuthn, [userID])
            }
            return .removed
        }
    }

    func disableWebAuthnSecondStep(userID: String) async throws -> Bool {
        try await database.write { db in try db.run(SecondFactorSQL.disableWebAuthn, [userID]) } == 1
    }
}

private enum TOTPColumn: Int32, SQLColumn {
    case userId, sealedSecret, createdAt, confirmedAt, lastStep
}

private enum SecondFactorSQL {
    static let totpByUser = "SELECT \(TOTPColumn.list()) FROM totp_factors WHERE user_id = ?"
    /// A pending factor is replaced (a second "set up" starts over); a confirmed one is never overwritten.
    static let startTOTP = """
        INSERT INTO totp_factors (user_id, sealed_secret, created_at) VALUES (?, ?, ?)
        ON CONFLICT (user_id) DO UPDATE SET sealed_secret = excluded.sealed_secret, created_at = excluded.created_at
        WHERE totp_factors.confirmed_at IS NULL
        """
    static let confirmTOTP = "UPDATE totp_factors SET confirmed_at = ?, last_step = ? WHERE user_id = ? AND confirmed_at IS NULL"
    /// The replay guard: only a step later than every accepted one moves it, in one statement.
    static let acceptStep = """
        UPDATE totp_factors SET last_step = ? WHERE user_id = ? AND confirmed_at IS NOT NULL AND (last_step IS NULL OR last_step < ?)
        """
    static let deleteTOTP = "DELETE FROM totp_factors WHERE user_id = ?"
    static let insertCode = "INSERT INTO recovery_codes (code_hash, user_id, created_at) VALUES (?, ?, ?)"
    static let useCode = "UPDATE recovery_codes SET used_at = ? WHERE code_hash = ? AND user_id = ? AND used_at IS NULL"
    static let countUnused = "SELECT COUNT(*) FROM recovery_codes WHERE user_id = ? AND used_at IS NULL"
    static let deleteCodes = "DELETE FROM recovery_codes WHERE user_id = ?"
    static let totpConfirmed = "SELECT 1 FROM totp_factors WHERE user_id = ? AND confirmed_at IS NOT NULL"
    /// On: the user's choice, and a credential to answer with.
    static let webAuthnOn = """
        SELECT 1 FROM webauthn_second_steps s WHERE s.user_id = ?
        AND EXISTS (SELECT 1 FROM webauthn_credentials c WHERE c.user_id = s.user_id)
        """
    static let enableWebAuthn = """
        INSERT INTO webauthn_second_steps (user_id, enabled_at) SELECT ?, ?
        WHERE EXISTS (SELECT 1 FROM webauthn_credentials WHERE user_id = ?) ON CONFLICT (user_id) DO NOTHING
        """
    static let disableWebAuthn = "DELETE FROM webauthn_second_steps WHERE user_id = ?"
}
