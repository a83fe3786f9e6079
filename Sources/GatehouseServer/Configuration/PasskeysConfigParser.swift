import Foundation

/// The WebAuthn relying party's settings (config section `passkeys`).
public struct PasskeySettings: Sendable, Equatable {
    /// `passkeys.rp_id`: the RP ID passkeys are scoped to; nil means the public URL's host. It must be
    /// that host or a parent domain of it, and must never change once passkeys exist.
    public var rpID: String?
    /// `passkeys.rp_name`: the name browsers show beside the passkey.
    public var rpName = "Gatehouse"

    public init() {}

    /// The RP ID in effect for `publicURL`.
    public func effectiveRPID(publicURL: URL) -> String {
        rpID ?? publicURL.host?.lowercased() ?? "localhost"
    }
}

/// Reads the `passkeys` section: `rp_id` (a host name that is the public URL's host or one of its parent
/// domains) and `rp_name` (1–64 characters).
enum PasskeysConfigParser {
    static let knownKeys: Set<String> = ["rp_id", "rp_name"]

    static func apply(_ section: ConfigFile.Section, publicURL: URL, to settings: inout PasskeySettings) throws(ConfigurationError) {
        if let value = section.values["rp_id"] {
            let host = publicURL.host?.lowercased() ?? ""
            guard let id = value as? String, !id.isEmpty, id == id.lowercased(),
                  id.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." }),
                  host == id || host.hasSuffix("." + id) else {
                throw ConfigurationError(key: "passkeys.rp_id",
                                         problem: "must be the public URL's host (\(host)) or a parent domain of it, in lowercase")
            }
            settings.rpID = id
        }
        if let value = section.values["rp_name"] {
            guard let name = value as? String, (1...64).contains(name.count) else {
                throw ConfigurationError(key: "passkeys.rp_name", problem: "must be a string of 1 to 64 characters")
            }
            settings.rpName = name
        }
    }
}
