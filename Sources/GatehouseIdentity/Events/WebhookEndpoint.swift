import Foundation

/// One entry of the `webhooks` configuration: where to POST which events, and the secret they are signed with.
public struct WebhookEndpoint: Sendable, Equatable {
    public var url: URL
    /// The HMAC-SHA256 key (its UTF-8 bytes). Never logged, never stored in the database.
    public var secret: String
    public var events: Set<AccountEventType>

    public init(url: URL, secret: String, events: Set<AccountEventType>) {
        self.url = url; self.secret = secret; self.events = events
    }
}

/// A client's OpenID Connect Back-Channel Logout registration (client metadata `backchannel_logout_uri`,
/// `backchannel_logout_session_required`).
public struct BackchannelLogoutRegistration: Sendable, Equatable {
    public static let uriKey = "backchannel_logout_uri"
    public static let sessionRequiredKey = "backchannel_logout_session_required"

    public var uri: URL
    /// The RP needs a `sid` in every logout token; account-wide (`sub`-only) tokens are not sent to it.
    public var sessionRequired: Bool

    public init(uri: URL, sessionRequired: Bool) { self.uri = uri; self.sessionRequired = sessionRequired }

    /// The registration kept in a client's metadata, if any.
    public init?(metadata: String) {
        guard metadata.contains(Self.uriKey) else { return nil }
        let object = ClientMetadata.object(metadata)
        guard let text = object[Self.uriKey] as? String, let uri = URL(string: text) else { return nil }
        self.init(uri: uri, sessionRequired: object[Self.sessionRequiredKey] as? Bool ?? false)
    }
}
