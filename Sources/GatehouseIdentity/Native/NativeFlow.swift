import Foundation

/// What a provider flow started from a native app (F2) carries from `/native/start` to its end: the app,
/// the S256 challenge of the verifier its web view holds, the callback the result goes to, and — for
/// "Link <provider>" from the app — the account the web view's link ticket named. Stored inside the
/// provider flow; decoding refuses a value that could not have been started (a damaged row).
public struct NativeFlow: Sendable, Equatable, Codable {
    public let appID: String
    /// base64url SHA-256 of the web view's verifier: the hand-off this flow ends in needs that verifier.
    public let challenge: String
    /// `scheme` (the app's private-use scheme) or one of the app's registered https callbacks.
    public let callback: String
    /// The account a link flow adds the provider to; nil for a sign-in. Nothing is linked before the
    /// redeem runs in that account's web view.
    public let linkUserId: String?

    /// Why a native flow cannot start; nothing is stored.
    public enum Refusal: Error, Equatable, Sendable {
        case unknownApp
        case invalidChallenge
        case unknownCallback
        /// The link ticket is unknown, spent, expired, or was minted for another app or another web view.
        case invalidLinkTicket

        public var message: String {
            switch self {
            case .unknownApp: "This app is not registered for signing in (unknown app or no callback scheme)."
            case .invalidChallenge: "The challenge must be the base64url SHA-256 of the app's verifier."
            case .unknownCallback: "This callback is not registered for the app."
            case .invalidLinkTicket: "This link request has expired. Start linking again from the app."
            }
        }
    }

    enum CodingKeys: String, CodingKey {
        // The keys flows in flight were stored with before this type existed.
        case appID = "app", challenge, callback, linkUserId = "link_user"
    }

    /// A flow for `appID`; nil when the parts could not come from a valid start.
    public init?(appID: String, challenge: String, callback: String, linkUserId: String? = nil) {
        guard !appID.isEmpty, HandoffTokens.isValidChallenge(challenge),
              callback == "scheme" || NativeApp.isValidHTTPSCallback(callback),
              linkUserId.map({ !$0.isEmpty }) ?? true else { return nil }
        self.appID = appID; self.challenge = challenge; self.callback = callback; self.linkUserId = linkUserId
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard let flow = NativeFlow(appID: try container.decode(String.self, forKey: .appID),
                                    challenge: try container.decode(String.self, forKey: .challenge),
                                    callback: try container.decodeIfPresent(String.self, forKey: .callback) ?? "scheme",
                                    linkUserId: try container.decodeIfPresent(String.self, forKey: .linkUserId)) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a native flow that could start"))
        }
        self = flow
    }

    /// Checks a start form's native fields: a registered app, an S256 challenge, one of the app's callbacks,
    /// and — for a link — a ticket minted by that app's web view for this same challenge (spent here).
    public static func start(app appID: String?, challenge: String?, callback: String?, linkTicket: String?,
                             apps: NativeAppDirectory, tickets: HandoffConfirmations) async throws -> (NativeFlow, NativeApp) {
        guard let app = try await apps.app(appID) else { throw Refusal.unknownApp }
        guard let challenge, HandoffTokens.isValidChallenge(challenge) else { throw Refusal.invalidChallenge }
        guard let callback = app.callback(named: callback) else { throw Refusal.unknownCallback }
        var linkUserId: String?
        if let linkTicket, !linkTicket.isEmpty {
            guard let userId = try await tickets.takeLinkTicket(linkTicket, appID: app.clientID, challenge: challenge) else {
                throw Refusal.invalidLinkTicket
            }
            linkUserId = userId
        }
        guard let flow = NativeFlow(appID: app.clientID, challenge: challenge, callback: callback, linkUserId: linkUserId) else {
            throw Refusal.unknownCallback
        }
        return (flow, app)
    }
}
