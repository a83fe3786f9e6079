/// Who is asking: the client's address and user agent, for rate limits, audit entries and session lists.
public struct ClientContext: Sendable, Equatable {
    public var ip: String?
    public var userAgent: String?

    public init(ip: String?, userAgent: String?) {
        self.ip = ip
        // Stored and shown back to the user: bound its length.
        self.userAgent = userAgent.map { String($0.prefix(512)) }
    }

    public static let unknown = ClientContext(ip: nil, userAgent: nil)
}
