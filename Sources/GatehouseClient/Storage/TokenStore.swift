import Foundation

/// Where an `AuthState` keeps tokens between launches.
public protocol TokenStore: Sendable {
    /// The stored tokens, or `nil` when signed out.
    func load() async throws -> TokenSet?
    /// Replaces whatever is stored.
    func save(_ tokens: TokenSet) async throws
    /// Removes the tokens (sign-out). Not an error when nothing is stored.
    func clear() async throws
}

/// Tokens in memory only: for tests, and for apps that want a sign-in per launch.
public actor InMemoryTokenStore: TokenStore {
    private var tokens: TokenSet?

    public init(_ tokens: TokenSet? = nil) { self.tokens = tokens }

    public func load() -> TokenSet? { tokens }
    public func save(_ tokens: TokenSet) { self.tokens = tokens }
    public func clear() { tokens = nil }
}
