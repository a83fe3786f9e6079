import Foundation
import GatehouseStore

/// Whether the person behind a signed-in session is the account's owner *now*, for actions that must not ride
/// on a session left open or stolen (deleting the account, downloading its data). Each way of proving it is a
/// ``Proof``:
///
/// - a password account proves it by typing the password on the page (limited like every current-password
///   check), however recent its sign-in;
/// - any account proves it by a sign-in with a provider or a passkey at most `window` old (the page sends a
///   user without a password through their provider or passkey again), so a user without a password is never
///   asked for one. A password sign-in never counts this way: the password is typed for the action instead.
public struct RecentAuthentication: Sendable {
    public enum Proof: Sendable, Equatable {
        /// The account's password, typed for this action.
        case password(String)
        /// The session the action came in: it counts when it began with a provider sign-in within the window.
        case signIn(Session)
    }

    /// How the owner can prove it, for the page to offer.
    public struct Methods: Sendable, Equatable {
        public let password: Bool
        /// The session already proves it (a provider sign-in within the window).
        public let sessionIsRecent: Bool

        public init(password: Bool, sessionIsRecent: Bool) { self.password = password; self.sessionIsRecent = sessionIsRecent }
    }

    public static let defaultWindow: TimeInterval = 5 * 60

    let accounts: AccountService
    let clock: IdentityClock
    public let window: TimeInterval

    /// - Parameter window: nil: the session policy's `freshSignInWindow`.
    public init(accounts: AccountService, clock: IdentityClock = .system, window: TimeInterval? = nil) {
        self.accounts = accounts; self.clock = clock; self.window = window ?? accounts.sessions.policy.freshSignInWindow
    }

    public func methods(user: User, session: Session) -> Methods {
        Methods(password: user.passwordHash != nil, sessionIsRecent: isRecentProviderSignIn(session, of: user))
    }

    /// Throws ``AccountError/reauthenticationRequired`` when `proof` shows nothing, `invalidCredentials` for a
    /// wrong password, `rateLimited` past the password-check limit.
    public func verify(_ proof: Proof, user: User, context: ClientContext) async throws {
        switch proof {
        case .password(let password):
            guard let stored = user.passwordHash, !password.isEmpty else { throw AccountError.reauthenticationRequired }
            try await accounts.limitPasswordCheck(userId: user.id, context: context)
            guard await accounts.hasher.verify(password, against: stored) else { throw AccountError.invalidCredentials }
        case .signIn(let session):
            guard isRecentProviderSignIn(session, of: user) else { throw AccountError.reauthenticationRequired }
        }
    }

    func isRecentProviderSignIn(_ session: Session, of user: User) -> Bool {
        session.userId == user.id && clock.now().timeIntervalSince(session.createdAt) <= window
            && session.authMethods.contains { $0 != "pwd" }
    }
}
