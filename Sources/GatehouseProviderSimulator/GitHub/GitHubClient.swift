/// A GitHub OAuth app as registered in the developer settings.
public struct GitHubClient: Sendable {
    public var clientID: String
    public var clientSecret: String
    /// Callback URLs. GitHub itself also accepts sub-paths of the registered callback; the simulator
    /// asks for an exact match, the stricter rule Gatehouse must satisfy anyway.
    public var redirectURIs: [String]

    public init(clientID: String, clientSecret: String, redirectURIs: [String]) {
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.redirectURIs = redirectURIs
    }
}
