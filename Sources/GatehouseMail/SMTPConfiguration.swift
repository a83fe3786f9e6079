import Foundation

/// How to reach the SMTP relay and whom mail comes from.
///
/// Build it with ``init(json:)`` from the server's `mail` configuration object, or field by field
/// with ``init(url:fromAddress:fromName:username:password:startTLS:connectTimeoutSeconds:totalTimeoutSeconds:caFile:)``.
/// Its descriptions and mirror hide the password, so logging or dumping it is safe.
public struct SMTPConfiguration: Sendable {
    /// Whether to upgrade a plain `smtp://` connection with STARTTLS (ignored for `smtps://`,
    /// which is TLS from the first byte).
    public enum StartTLS: String, Sendable, CaseIterable {
        /// Fail unless the server upgrades to TLS (CURLUSESSL_ALL). The default.
        case required
        /// Upgrade when the server offers it, else send in clear (CURLUSESSL_TRY).
        case optional
        /// Never upgrade (CURLUSESSL_NONE): only for a relay on loopback or a trusted network.
        case off
    }

    /// `smtp://host[:port]` or `smtps://host[:port]`, without credentials, path or query.
    public let url: String
    /// The envelope sender and the address in the `From` header.
    public let fromAddress: String
    /// The display name in the `From` header, if any.
    public let fromName: String?
    public let username: String?
    public let password: String?
    public let startTLS: StartTLS
    /// Whole seconds to establish the connection (including TLS).
    public let connectTimeoutSeconds: Int
    /// Whole seconds for one whole attempt, connection included.
    public let totalTimeoutSeconds: Int
    /// A PEM bundle of CA certificates to trust instead of the system's.
    public let caFile: String?
    /// Attempts per message for transient failures (refused or timed-out connections, 4xx replies).
    public var maxAttempts: Int = 3
    /// The pause before the second attempt; it doubles before each later one.
    public var initialRetryDelay: Duration = .milliseconds(500)

    /// Validates every field; throws naming the JSON key that the field comes from.
    public init(url: String, fromAddress: String, fromName: String? = nil, username: String? = nil,
                password: String? = nil, startTLS: StartTLS = .required, connectTimeoutSeconds: Int = 10,
                totalTimeoutSeconds: Int = 30, caFile: String? = nil) throws(SMTPConfigurationError) {
        try Self.validateURL(url)
        guard MailAddress.isValid(fromAddress) else {
            throw SMTPConfigurationError(key: "from", problem: "must be a plain address such as noreply@example.com")
        }
        if let fromName, fromName.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw SMTPConfigurationError(key: "from_name", problem: "must not contain control characters or line breaks")
        }
        if username != nil, password == nil {
            throw SMTPConfigurationError(key: "password", problem: "is required when username is set")
        }
        if password != nil, username == nil {
            throw SMTPConfigurationError(key: "username", problem: "is required when password is set")
        }
        for (key, value) in [("username", username), ("password", password)] {
            if let value, value.isEmpty || value.contains(where: { $0.isNewline || $0 == "\0" }) {
                throw SMTPConfigurationError(key: key, problem: "must be non-empty, on one line")
            }
        }
        guard (1...300).contains(connectTimeoutSeconds) else {
            throw SMTPConfigurationError(key: "timeout_seconds.connect", problem: "must be an integer in 1...300")
        }
        guard (1...600).contains(totalTimeoutSeconds), totalTimeoutSeconds >= connectTimeoutSeconds else {
            throw SMTPConfigurationError(key: "timeout_seconds.total",
                                         problem: "must be an integer in 1...600, at least the connect timeout")
        }
        if let caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            throw SMTPConfigurationError(key: "ca_file", problem: "is not a readable file")
        }
        self.url = url
        self.fromAddress = fromAddress
        self.fromName = fromName.flatMap { $0.isEmpty ? nil : $0 }
        self.username = username
        self.password = password
        self.startTLS = startTLS
        self.connectTimeoutSeconds = connectTimeoutSeconds
        self.totalTimeoutSeconds = totalTimeoutSeconds
        self.caFile = caFile
    }

    /// Implicit TLS (`smtps://`): STARTTLS does not apply.
    var usesImplicitTLS: Bool { url.lowercased().hasPrefix("smtps://") }

    /// Only `scheme://host[:port]`: credentials in the URL would leak into logs, and a path
    /// would silently change the EHLO name.
    private static func validateURL(_ url: String) throws(SMTPConfigurationError) {
        guard let components = URLComponents(string: url),
              let scheme = components.scheme?.lowercased(), scheme == "smtp" || scheme == "smtps" else {
            throw SMTPConfigurationError(key: "url", problem: "must look like smtp://host:port or smtps://host:port")
        }
        guard let host = components.host, !host.isEmpty else {
            throw SMTPConfigurationError(key: "url", problem: "has no host")
        }
        // Don't echo the URL: it might carry a password the operator pasted by mistake.
        guard components.user == nil, components.password == nil else {
            throw SMTPConfigurationError(key: "url", problem: "must not carry credentials; use username and password")
        }
        guard components.path.isEmpty || components.path == "/", components.query == nil, components.fragment == nil else {
            throw SMTPConfigurationError(key: "url", problem: "must not have a path, query or fragment")
        }
        if let port = components.port, !(1...65_535).contains(port) {
            throw SMTPConfigurationError(key: "url", problem: "has a port outside 1...65535")
        }
    }
}

extension SMTPConfiguration: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        "SMTPConfiguration(url: \(url), from: \(fromAddress), username: \(username ?? "none"), "
            + "password: \(password == nil ? "none" : "<redacted>"), starttls: \(startTLS.rawValue), "
            + "timeouts: \(connectTimeoutSeconds)s/\(totalTimeoutSeconds)s)"
    }

    public var debugDescription: String { description }

    /// `dump()` and the debugger read the mirror, not the description: keep the password out of both.
    public var customMirror: Mirror {
        Mirror(self, children: ["url": url, "fromAddress": fromAddress, "fromName": fromName as Any,
                                "username": username as Any, "password": password == nil ? "none" : "<redacted>",
                                "startTLS": startTLS, "connectTimeoutSeconds": connectTimeoutSeconds,
                                "totalTimeoutSeconds": totalTimeoutSeconds, "caFile": caFile as Any,
                                "maxAttempts": maxAttempts, "initialRetryDelay": initialRetryDelay])
    }
}
