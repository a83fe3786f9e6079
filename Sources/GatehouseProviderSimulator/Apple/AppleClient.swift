import GatehouseCrypto

/// A "Sign in with Apple" Services ID as registered with Apple: its team, the key its client
/// secrets are signed with, and its return URLs.
public struct AppleClient: Sendable {
    /// The Services ID (the `client_id`, and the `sub` of its client secrets).
    public var clientID: String
    /// The 10-character team id (the `iss` of client secrets).
    public var teamID: String
    /// The key id Apple assigned to the `.p8` key (the client secret's header `kid`).
    public var keyID: String
    /// The public half of the `.p8` key: client secrets must verify under it (ES256).
    public var publicKey: VerificationKey
    /// Return URLs; a request's `redirect_uri` must equal one of them exactly.
    public var redirectURIs: [String]

    /// A client whose key is given as a public JWK-backed ``VerificationKey`` (EC P-256).
    public init(clientID: String, teamID: String, keyID: String, publicKey: VerificationKey, redirectURIs: [String]) {
        self.clientID = clientID
        self.teamID = teamID
        self.keyID = keyID
        self.publicKey = publicKey
        self.redirectURIs = redirectURIs
    }

    /// A client whose key is given as the `.p8` file's PEM (only its public half is kept).
    public init(clientID: String, teamID: String, keyID: String, p8PEM: String, redirectURIs: [String]) throws(JOSEError) {
        let key = try SigningKey(pem: p8PEM)
        guard key.algorithm == .es256 else { throw .unsupportedKeyType("Apple .p8 keys are P-256") }
        self.init(clientID: clientID, teamID: teamID, keyID: keyID, publicKey: key.verificationKey, redirectURIs: redirectURIs)
    }
}
