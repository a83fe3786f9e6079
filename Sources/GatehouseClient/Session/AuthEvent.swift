import Foundation

/// A change of an `AuthState`, delivered on `AuthState.events()` (in the spirit of supabase-swift's
/// `authStateChanges` and AppKit's state-change delegates of AppAuth).
public enum AuthEvent: Sendable, Equatable {
    /// The state when the stream was made: the current tokens, or nil when signed out. Always first.
    case initial(TokenSet?)
    /// A sign-in completed (any grant) and its tokens were stored.
    case signedIn(TokenSet)
    /// A refresh succeeded; the (possibly rotated) tokens were stored before anyone got them.
    case refreshed(TokenSet)
    /// The app signed out (`signOut`, `endSession`).
    case signedOut
    /// The server ended the session: a refresh was answered `invalid_grant` (revoked, expired, reused
    /// refresh token) — the error is attached — or the access token died with nothing to refresh it
    /// with (nil). Storage is already cleared; show the signed-out UI.
    case sessionEnded(OAuthError?)
}

/// The open `events()` streams of one `AuthState`.
struct AuthEventBroadcast {
    private var continuations: [UUID: AsyncStream<AuthEvent>.Continuation] = [:]

    mutating func add(_ id: UUID, _ continuation: AsyncStream<AuthEvent>.Continuation) { continuations[id] = continuation }
    mutating func remove(_ id: UUID) { continuations[id] = nil }

    func send(_ event: AuthEvent) {
        for continuation in continuations.values { continuation.yield(event) }
    }

    func finish() {
        for continuation in continuations.values { continuation.finish() }
    }
}
