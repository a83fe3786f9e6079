import GatehouseStore

/// The account page's passkey list and its rename and remove, so page routes never hold the store.
extension WebAuthnCeremonies {
    /// The user's passkeys and security keys, oldest first.
    public func credentials(of userID: String) async throws -> [WebAuthnCredential] {
        try await credentials.credentials(userID: userID)
    }

    /// Renames one of the user's credentials; false when the user has no such credential.
    public func rename(credentialID: [UInt8], userID: String, name: String) async throws -> Bool {
        try await credentials.rename(credentialID: credentialID, userID: userID, name: name)
    }

    /// Removes one of the user's credentials unless it is the account's last way in, or its last second
    /// factor while two-step sign-in is on.
    public func remove(credentialID: [UInt8], userID: String) async throws -> CredentialRemoval {
        try await credentials.deleteUnlessLast(credentialID: credentialID, userID: userID)
    }
}
