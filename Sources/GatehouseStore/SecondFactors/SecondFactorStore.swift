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

    /// Whether the user's security keys and passkeys answer the second step: the user turned it on and
    /// still has a WebAuthn credential.
    func webAuthnSecondStep(userID: String) async throws -> Bool

    /// Turns the security-key second step on, only when the user has a WebAuthn credential; whether it is on.
    func enableWebAuthnSecondStep(userID: String, at: Date) async throws -> Bool

    /// Removes one second factor (a confirmed authenticator app, or the security-key second step) unless
    /// it is the last one: one transaction that locks the user row first, so two removals racing on an
    /// account's last two factors (or on a factor and the last security key) cannot both succeed.
    func removeUnlessLast(_ factor: SecondFactorKind, userID: String) async throws -> SecondFactorRemoval

    /// Turns the security-key second step off whatever else the account has (two-step sign-in turned off, an
    /// administrator's reset); whether it was on.
    @discardableResult
    func disableWebAuthnSecondStep(userID: String) async throws -> Bool
}

/// The second factors one at a time.
public enum SecondFactorKind: String, Sendable, Equatable, CaseIterable {
    /// A confirmed authenticator app.
    case totp
    /// The user's security keys and passkeys at the second step.
    case webAuthn = "webauthn"
}

/// What ``SecondFactorStore/removeUnlessLast(_:userID:)`` did.
public enum SecondFactorRemoval: Sendable, Equatable {
    case removed
    /// The account did not have that factor.
    case notEnrolled
    /// It was the account's only second factor: nothing removed.
    case lastFactor
}
