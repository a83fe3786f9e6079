import Foundation

/// Second factors of password accounts: one TOTP authenticator per user and the recovery codes
/// (stored as hashes). Every "use" is one conditional statement, so a code is spent once however many
/// processes race on it.
public protocol SecondFactorStore: Sendable {
    /// The user's TOTP factor, confirmed or pending.
    func totp(userID: String) async throws -> TOTPFactor?

    /// Stores a pending (unconfirmed) factor, replacing an earlier pending one. False when the user
    /// has a confirmed factor already (it is removed first); throws `StoreError.notFound` for no such user.
    func startTOTP(_ factor: TOTPFactor) async throws -> Bool

    /// Confirms the pending factor with its first code's step. False when there is no pending factor.
    func confirmTOTP(userID: String, step: Int64, at: Date) async throws -> Bool

    /// Records that a code of `step` was accepted, only if the factor is confirmed and no code of
    /// this step or a later one was accepted before. Of concurrent callers with one step exactly one
    /// gets true.
    func acceptTOTPStep(userID: String, step: Int64) async throws -> Bool

    /// Deletes the user's TOTP factor, pending or confirmed; whether there was one.
    @discardableResult
    func deleteTOTP(userID: String) async throws -> Bool

    /// Replaces every recovery code of the user with these (hashes of the codes shown once).
    func replaceRecoveryCodes(userID: String, hashes: [TokenHash], at: Date) async throws

    /// Spends the user's unused code with this hash; of concurrent callers exactly one gets true.
    func useRecoveryCode(userID: String, hash: TokenHash, at: Date) async throws -> Bool

    /// How many of the user's recovery codes are still unused.
    func unusedRecoveryCodes(userID: String) async throws -> Int

    /// Deletes every recovery code of the user; how many.
    @discardableResult
    func deleteRecoveryCodes(userID: String) async throws -> Int
}
