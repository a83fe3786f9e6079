import Foundation
import GatehouseCrypto
import GatehouseIdentity
import GatehouseProviders

/// Flow state for upstream sign-ins, server-side in Identity's `SingleUseStates` keyed by the SHA-256 of an
/// unguessable value: the `state` while at the provider (≤ 10 minutes), then a finish `ticket` (≤ 2
/// minutes) that carries the verified profile to the first-party finish step. Both are single-use.
struct ProviderFlowStore: Sendable {
    static let flowLifetime: TimeInterval = 600
    static let ticketLifetime: TimeInterval = 120

    /// What the callback hands to the finish step.
    struct Ticket: Codable, Sendable {
        var kind = "provider-finish"
        var flow: ProviderFlow
        var provider: String
        var subject: String
        var email: String?
        var emailVerified: Bool
        var isPrivateRelay: Bool
        var name: String?
        /// The provider's refresh token, sealed (it rests in the database for up to two minutes).
        var sealedRefreshToken: [UInt8]?
        /// The client the refresh token was issued to (native Apple: the app's bundle id); nil for the
        /// provider's configured web client.
        var tokenClientID: String?

        /// What the provider proved, for the account rules.
        var identity: VerifiedExternalIdentity {
            VerifiedExternalIdentity(provider: provider, subject: subject, email: email, emailVerified: emailVerified,
                                     isPrivateRelay: isPrivateRelay, name: name, sealedRefreshToken: sealedRefreshToken,
                                     tokenClientID: tokenClientID)
        }

        /// The account a link flow adds this identity to (nil for a sign-in).
        var linkUserId: String? {
            if case .link(let userId) = flow.intent { return userId }
            return nil
        }
    }

    let states: SingleUseStates
    let sealing: KeyEncryptionKey

    /// Stores `flow` and returns its `state`.
    func start(_ flow: ProviderFlow) async throws -> String {
        try await states.put(flow.encoded(), lifetime: Self.flowLifetime)
    }

    /// The flow for `state`, removed so it cannot be used twice; nil when unknown, used or expired.
    func consume(state: String) async throws -> ProviderFlow? {
        guard let payload = try await states.take(state) else { return nil }
        return ProviderFlow.decode(payload)
    }

    func issueTicket(flow: ProviderFlow, profile: ExternalProfile) async throws -> String {
        let sealed = try profile.refreshToken.map { try sealing.seal(Array($0.utf8), keyID: Self.tokenLabel(profile)) }
        let payload = Ticket(flow: flow, provider: profile.provider, subject: profile.subject, email: profile.email,
                             emailVerified: profile.emailVerified, isPrivateRelay: profile.isPrivateRelay, name: profile.name,
                             sealedRefreshToken: sealed)
        return try await states.put(String(decoding: try JSONEncoder().encode(payload), as: UTF8.self), lifetime: Self.ticketLifetime)
    }

    func redeemTicket(_ ticket: String) async throws -> Ticket? {
        guard let payload = try await states.take(ticket) else { return nil }
        guard let decoded = try? JSONDecoder().decode(Ticket.self, from: Data(payload.utf8)), decoded.kind == "provider-finish" else { return nil }
        return decoded
    }

    /// Associated data for a sealed provider token: binds it to its identity, so it cannot be moved to another row.
    static func tokenLabel(_ profile: ExternalProfile) -> String { tokenLabel(provider: profile.provider, subject: profile.subject) }
    static func tokenLabel(provider: String, subject: String) -> String { ProviderTokenSealing.label(provider: provider, subject: subject) }
}
