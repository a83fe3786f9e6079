/// A Google OAuth client ("Web application") as registered in the Cloud console.
public struct GoogleClient: Sendable {
    public var clientID: String
    public var clientSecret: String
    /// Authorized redirect URIs; a request's `redirect_uri` must equal one exactly.
    public var redirectURIs: [String]
    /// Refuse authorization requests without a PKCE challenge. Google itself lets confidential
    /// clients skip PKCE; the simulator requires it by default so a client that forgets fails loudly.
    public var requiresPKCE: Bool

    public init(clientID: String, clientSecret: String, redirectURIs: [String], requiresPKCE: Bool = true) {
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.redirectURIs = redirectURIs
        self.requiresPKCE = requiresPKCE
    }
}
