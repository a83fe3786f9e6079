import Foundation

/// Registered WebAuthn credentials and each user's opaque user handle.
public protocol WebAuthnCredentialStore: Sendable {
    /// Stores a new credential. Throws `StoreError.conflict` when its id is registered already (to
    /// anyone), `StoreError.notFound` when the user does not exist.
    func create(_ credential: WebAuthnCredential) async throws

    /// The credential with this id, whoever owns it.
    func credential(id: [UInt8]) async throws -> WebAuthnCredential?

    /// The user's credentials, oldest first.
    func credentials(userID: String) async throws -> [WebAuthnCredential]

    /// Records a successful assertion: the new counter, the current BS flag and the time, only if the
    /// stored counter is still `previousSignCount` (so two assertions racing on one counter cannot
    /// both move it). Returns whether the row changed.
    func recordUse(credentialID: [UInt8], previousSignCount: UInt32, signCount: UInt32, backedUp: Bool, at: Date) async throws -> Bool

    /// Renames the user's credential; false when the user has no such credential.
    func rename(credentialID: [UInt8], userID: String, name: String) async throws -> Bool

    /// Deletes the user's credential unless it is the account's last way in (no password, no other
    /// credential, no linked identity) or the last second factor (the security-key second step on, no
    /// authenticator app, no other credential): one transaction that locks the user row first, so two
    /// removals racing on an account's last two ways in (or last two keys) cannot both succeed.
    func deleteUnlessLast(credentialID: [UInt8], userID: String) async throws -> CredentialRemoval

    /// Deletes every credential of the user (the first proof of an address by someone who did not show they
    /// made them); returns how many.
    func deleteAll(userID: String) async throws -> Int

    /// The user's handle, storing `proposed` when the user has none yet (so concurrent callers all
    /// get the one stored). Throws `StoreError.notFound` when the user does not exist.
    func userHandle(userID: String, proposed: [UInt8]) async throws -> [UInt8]

    /// The user whose handle this is.
    func userID(handle: [UInt8]) async throws -> String?
}

/// What ``WebAuthnCredentialStore/deleteUnlessLast(credentialID:userID:)`` did.
public enum CredentialRemoval: Sendable, Equatable {
    case deleted
    case notFound
    /// The account's only way in: nothing deleted.
    case lastMethod
    /// The account's only second factor while two-step sign-in is on: nothing deleted.
    case lastSecondFactor
}

/// Outstanding WebAuthn challenges; each is single-use.
public protocol WebAuthnChallengeStore: Sendable {
    /// Stores a new challenge. Throws `StoreError.conflict` for a duplicate hash.
    func create(_ challenge: WebAuthnChallenge) async throws

    /// Atomically removes and returns the challenge if it exists and has not expired at `now`;
    /// of concurrent callers exactly one gets it.
    func consume(challengeHash: TokenHash, now: Date) async throws -> WebAuthnChallenge?

    /// Deletes up to `limit` challenges expired at `now`; returns how many.
    @discardableResult
    func purgeExpired(now: Date, limit: Int) async throws -> Int
}
