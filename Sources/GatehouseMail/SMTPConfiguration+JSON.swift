import Foundation

extension SMTPConfiguration {
    /// The keys ``init(json:)`` accepts.
    public static let jsonKeys: Set<String> = ["url", "from", "from_name", "username", "password", "starttls",
                                               "timeout_seconds", "ca_file"]

    /// Parses the server's `mail` configuration object, as decoded by `JSONSerialization`:
    ///
    /// ```json
    /// { "url": "smtp://mail.example.com:587", "from": "noreply@example.com", "from_name": "Example",
    ///   "username": "gatehouse", "password": "…", "starttls": "required",
    ///   "timeout_seconds": { "connect": 10, "total": 30 }, "ca_file": "/etc/ssl/relay-ca.pem" }
    /// ```
    ///
    /// `url` and `from` are required. `starttls` is `required` (default), `optional` or `off`.
    /// `timeout_seconds` is either one integer (the total; connect is then the smaller of it and 10)
    /// or an object with `connect` and `total`. Unknown keys are errors, so a typo never silently
    /// leaves a default in place. Errors name the key (relative to the `mail` object), never the value.
    public init(json: [String: Any]) throws(SMTPConfigurationError) {
        for key in json.keys.sorted() where !Self.jsonKeys.contains(key) {
            throw SMTPConfigurationError(key: key, problem: "unknown mail setting")
        }
        guard let url = try Self.string(json, "url") else {
            throw SMTPConfigurationError(key: "url", problem: "is required")
        }
        guard let from = try Self.string(json, "from") else {
            throw SMTPConfigurationError(key: "from", problem: "is required")
        }
        var startTLS = StartTLS.required
        if let raw = try Self.string(json, "starttls") {
            guard let value = StartTLS(rawValue: raw) else {
                throw SMTPConfigurationError(key: "starttls", problem: "must be \"required\", \"optional\" or \"off\"")
            }
            startTLS = value
        }
        var connect = 10, total = 30
        switch json["timeout_seconds"] {
        case nil:
            break
        case let object as [String: Any]:
            for key in object.keys.sorted() where key != "connect" && key != "total" {
                throw SMTPConfigurationError(key: "timeout_seconds.\(key)", problem: "unknown setting")
            }
            if let value = try Self.integer(object["connect"], key: "timeout_seconds.connect") { connect = value }
            if let value = try Self.integer(object["total"], key: "timeout_seconds.total") { total = value }
        case let value:
            total = try Self.integer(value, key: "timeout_seconds") ?? total
            connect = min(10, total)
        }
        try self.init(url: url, fromAddress: from, fromName: try Self.string(json, "from_name"),
                      username: try Self.string(json, "username"), password: try Self.string(json, "password"),
                      startTLS: startTLS, connectTimeoutSeconds: connect, totalTimeoutSeconds: total,
                      caFile: try Self.string(json, "ca_file"))
    }

    private static func string(_ json: [String: Any], _ key: String) throws(SMTPConfigurationError) -> String? {
        guard let value = json[key], !(value is NSNull) else { return nil }
        guard let string = value as? String else { throw SMTPConfigurationError(key: key, problem: "must be a string") }
        return string
    }

    /// Whole seconds only: a fraction is refused rather than silently truncated.
    private static func integer(_ value: Any?, key: String) throws(SMTPConfigurationError) -> Int? {
        guard let value, !(value is NSNull) else { return nil }
        guard let number = value as? NSNumber, !isBoolean(number), number.doubleValue == number.doubleValue.rounded(),
              let integer = Int(exactly: number.doubleValue) else {
            throw SMTPConfigurationError(key: key, problem: "must be a whole number of seconds")
        }
        return integer
    }

    /// JSONSerialization gives booleans as NSNumber; tell them apart from 0 and 1.
    private static func isBoolean(_ number: NSNumber) -> Bool {
        String(cString: number.objCType) == "c" || type(of: number) == type(of: NSNumber(value: true))
    }
}
