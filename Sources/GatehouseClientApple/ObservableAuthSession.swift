// SwiftUI glue: Apple platforms only. Linux has no Observation-backed SwiftUI, so this file is
// compiled out there (the condition below), and the Linux build and tests never see it.
#if canImport(Observation) && (os(iOS) || os(macOS) || os(tvOS) || os(watchOS) || os(visionOS))
import Foundation
import GatehouseClient
import Observation

/// An `@Observable` view of an `AuthState` for SwiftUI: views read `status`, `tokens` and
/// `endedByServer`, and re-render when `AuthState.events()` reports a change.
///
/// ```swift
/// @State private var session = ObservableAuthSession(authState: authState)
/// var body: some View {
///     if session.status == .signedIn { MainTabs() } else { WelcomeView(reason: session.endedByServer) }
/// }
/// ```
@available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
@MainActor
@Observable
public final class ObservableAuthSession {
    /// Signed in or out, as of the last event.
    public private(set) var status: AuthState.Status = .signedOut
    /// The current tokens (nil when signed out).
    public private(set) var tokens: TokenSet?
    /// Set when the server ended the session (refresh answered `invalid_grant`); cleared by the next sign-in.
    public private(set) var endedByServer: OAuthError?
    /// Whether the last sign-out was the server's doing rather than the user's.
    public private(set) var sessionEnded = false
    /// The underlying state, for signing in and calling APIs.
    @ObservationIgnored public let authState: AuthState

    public init(authState: AuthState) {
        self.authState = authState
        // The stream starts with `.initial`, so the first values arrive without a separate read.
        // `weak self`: once the view model is gone, the next event ends the loop.
        Task { [weak self, authState] in
            for await event in await authState.events() {
                guard let self else { return }
                self.apply(event)
            }
        }
    }

    private func apply(_ event: AuthEvent) {
        switch event {
        case .initial(let current):
            tokens = current
            status = current == nil ? .signedOut : .signedIn
        case .signedIn(let new), .refreshed(let new):
            tokens = new
            status = .signedIn
            endedByServer = nil
            sessionEnded = false
        case .signedOut:
            tokens = nil
            status = .signedOut
        case .sessionEnded(let error):
            tokens = nil
            status = .signedOut
            endedByServer = error
            sessionEnded = true
        }
    }

    /// Signs out here (revoking the refresh token); see `AuthState.signOut`.
    public func signOut() async throws { try await authState.signOut() }

    /// Signs out and returns the RP-initiated logout request to open in the sign-in browser.
    public func endSession(postLogoutRedirectURI: URL?) async throws -> EndSessionRequest? {
        try await authState.endSession(postLogoutRedirectURI: postLogoutRedirectURI)
    }
}
#endif
