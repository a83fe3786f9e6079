import Foundation

/// How long web sessions live.
public struct SessionPolicy: Sendable {
    /// A session unused this long ends (default 14 days).
    public var idleTimeout: TimeInterval
    /// A session ends this long after sign-in whatever its use (default 90 days).
    public var absoluteTimeout: TimeInterval
    /// Last-seen is written at most this often per session, so browsing is not a database write per page.
    public var touchInterval: TimeInterval
    /// How old a provider or passkey sign-in may be and still confirm it is the owner for deleting the account
    /// or downloading its data (``RecentAuthentication``; `sessions.fresh_sign_in_seconds`, default 5 minutes).
    public var freshSignInWindow: TimeInterval = RecentAuthentication.defaultWindow

    public init(idleTimeout: TimeInterval = 14 * 86_400, absoluteTimeout: TimeInterval = 90 * 86_400,
                touchInterval: TimeInterval = 60) {
        self.idleTimeout = idleTimeout; self.absoluteTimeout = absoluteTimeout; self.touchInterval = touchInterval
    }
}
