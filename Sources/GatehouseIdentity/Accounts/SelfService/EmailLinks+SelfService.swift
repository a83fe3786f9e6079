import Foundation
import GatehouseCrypto
import GatehouseStore

/// The mailed links of the account page's self-service: moving the account to a new address, and a first
/// password for an account that signs in only with a provider.
extension EmailLinks {
    /// How long the link to a new address works.
    public static let emailChangeLifetime: TimeInterval = 24 * 3_600

    /// What ``requestEmailChange(user:to:context:)`` did; the page says the same for every outcome but
    /// ``Refusal``, so it never tells whether another account holds the address.
    public enum EmailChangeRequest: Sendable, Equatable {
        /// The link went to the new address, a notice to the old one; nothing changed yet.
        case sent
        /// The new address has an account: its owner got a note instead of a link; nothing changed.
        case addressTaken
        /// More account mails than the limit: nothing sent.
        case suppressed
    }

    /// Starts moving `user` to `rawEmail`: a single-use link (``emailChangeLifetime``) to the new address, and a
    /// notice without a link to the current one. Nothing about the account changes until the link is used; a
    /// newer request voids the older link. Throws `invalidEmail` (also for the address the account has).
    /// The mails are in the user's saved language, else in `language` (the page's, where the change was asked).
    public func requestEmailChange(user: User, to rawEmail: String, context: ClientContext,
                                   language: String? = nil) async throws -> EmailChangeRequest {
        let language = user.language ?? language
        guard let email = EmailAddress(rawEmail), email.value != user.email else { throw AccountError.invalidEmail }
        if try await limiter.hit(limits.accountMailsPerAccount, key: user.id) != nil {
            await audit.record(.mailSuppressed, userId: user.id, context: context, details: ["mail": "email_change"])
            return .suppressed
        }
        _ = try await oneTimeTokens.invalidateAll(userId: user.id, purpose: .emailChange)
        if let owner = try await users.find(email: email.value), owner.id != user.id {
            await audit.record(.emailChangeRequested, userId: user.id, context: context, details: ["result": "address_taken"])
            // The same note a sign-up with a taken address sends, under the same per-recipient limit.
            try await sendAlreadyRegistered(to: owner, language: language)
            return .addressTaken
        }
        let payload = String(decoding: try JSONEncoder().encode(["email": email.value]), as: UTF8.self)
        let token = SecureRandom.token(byteCount: 32)
        let now = clock.now()
        try await oneTimeTokens.create(OneTimeToken(hash: Self.hash(token), purpose: .emailChange, userId: user.id, createdAt: now,
                                                             expiresAt: now.addingTimeInterval(Self.emailChangeLifetime), payload: payload))
        await audit.record(.emailChangeRequested, userId: user.id, context: context)
        queue(wording.message(.emailChange, to: email.value, language: language,
                              values: ["link": absoluteURL("/account/email/confirm/\(token)"), "old": user.email,
                                       "hours": String(Int(Self.emailChangeLifetime / 3_600))]))
        queue(wording.message(.emailChangeNotice, to: user.email, language: language,
                              values: ["new": email.value, "account": absoluteURL("/account"), "forgot": absoluteURL("/password/forgot")]))
        return .sent
    }

    /// Spends an address-change link (the POST of its page, never a GET, so a mail scanner changes nothing) and
    /// moves the account to the address it was sent to, now proven. As with every proof of an address
    /// the account is taken to be its new owner's alone: every session but `presentedSession` (when it is this
    /// account's) ends and every token issued before now is void. Throws `invalidToken` for a spent, expired or
    /// unknown link and `emailTaken` when another account took the address meanwhile (the link is spent).
    public func confirmEmailChange(token: String, presentedSession: (token: String, userId: String)? = nil,
                                   context: ClientContext) async throws -> User {
        guard let consumed = try await oneTimeTokens.consume(hash: Self.hash(token), purpose: .emailChange, now: clock.now()),
              let email = Self.address(in: consumed), let user = try await users.find(id: consumed.userId), !user.disabled else {
            throw AccountError.invalidToken
        }
        let now = clock.now()
        let moved: User
        do {
            moved = try await users.update(id: user.id, [.email(email), .emailVerified(true)], at: now)
        } catch let error as StoreError where error.kind == .conflict {
            throw AccountError.emailTaken
        }
        let keeping = presentedSession.flatMap { $0.userId == user.id ? $0.token : nil }
        let ended = try await accounts.sessions.endAll(userId: user.id, keeping: keeping, reason: "email_changed")
        _ = try await users.voidTokens(userId: user.id, issuedBefore: now)
        // A reset link mailed to the old address must not open the account any more.
        _ = try await oneTimeTokens.invalidateAll(userId: user.id, purpose: .passwordReset)
        await audit.record(.emailChanged, userId: user.id, context: context,
                           details: ["from": user.email, "to": email, "sessions_ended": String(ended)])
        return moved
    }

    /// Mails a provider-only account a link to choose its first password (the reset page, which asks only for
    /// the new one). Throws `invalidCredentials` for an account that has a password: it changes it instead.
    /// Returns false when the per-account mail limit dropped it. The mail is in the user's saved language, else in
    /// `language` (the page's).
    @discardableResult
    public func requestPasswordSetup(user: User, context: ClientContext, language: String? = nil) async throws -> Bool {
        guard user.passwordHash == nil else { throw AccountError.invalidCredentials }
        if try await limiter.hit(limits.accountMailsPerAccount, key: user.id) != nil {
            await audit.record(.mailSuppressed, userId: user.id, context: context, details: ["mail": "password_setup"])
            return false
        }
        let token = try await issue(.passwordReset, userId: user.id, lifetime: resetLifetime)
        await audit.record(.passwordSetupRequested, userId: user.id, context: context)
        queue(wording.message(.passwordSetup, to: user.email, language: user.language ?? language,
                              values: ["link": absoluteURL("/password/reset/\(token)"), "minutes": String(Int(resetLifetime / 60))]))
        return true
    }

    static func address(in token: OneTimeToken) -> String? {
        (try? JSONDecoder().decode([String: String].self, from: Data(token.payload.utf8)))?["email"]
    }
}
