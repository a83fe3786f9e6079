import GatehouseCrypto
import GatehouseHTTP

/// The person a tester "signs in" as on a picker page. Nothing is stored up front: any email
/// entered becomes an account, and provider subjects are derived from it so they stay stable
/// across requests and restarts.
public struct SimulatedAccount: Sendable, Hashable {
    /// The address the user signs in with (Apple: the real address behind a private relay).
    public var email: String
    /// The display name, e.g. "Ada Lovelace".
    public var name: String
    /// Apple: hide the address behind a `@privaterelay.appleid.com` relay.
    public var usesPrivateRelay: Bool
    /// Google and GitHub: whether the address is verified (Apple addresses always are).
    public var emailVerified: Bool
    /// Google: the account belongs to a Workspace domain (its email domain becomes `hd`).
    public var isWorkspaceAccount: Bool

    public init(email: String, name: String, usesPrivateRelay: Bool = false, emailVerified: Bool = true,
                isWorkspaceAccount: Bool = false) {
        self.email = email
        self.name = name
        self.usesPrivateRelay = usesPrivateRelay
        self.emailVerified = emailVerified
        self.isWorkspaceAccount = isWorkspaceAccount
    }

    /// Reads the picker form: `email` (required), `name`, and the checkboxes `private_relay`,
    /// `unverified_email` and `workspace` (any non-empty value but "false" counts as checked).
    /// Unverified is the checkbox, not verified, so a bare non-interactive POST gets the common case.
    init(pickerForm form: URLEncodedForm) throws(HTTPError) {
        let email = (form["email"] ?? "").trimmingCharacters(in: .whitespaces).lowercased()
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), email.utf8.count <= 254,
              !email.contains(where: { $0.isWhitespace || $0 == "<" || $0 == ">" }) else {
            throw HTTPError(.badRequest, "Enter an email address such as ada@example.com.")
        }
        func checked(_ name: String) -> Bool { form[name].map { !$0.isEmpty && $0 != "false" } ?? false }
        var name = (form["name"] ?? "").trimmingCharacters(in: .whitespaces)
        if name.isEmpty { name = String(parts[0]).capitalized }
        self.init(email: email, name: String(name.prefix(200)), usesPrivateRelay: checked("private_relay"),
                  emailVerified: !checked("unverified_email"), isWorkspaceAccount: checked("workspace"))
    }

    /// First word of the name (Apple `firstName`, Google `given_name`).
    public var givenName: String { name.split(separator: " ").first.map(String.init) ?? name }
    /// The rest of the name (Apple `lastName`, Google `family_name`); empty for a one-word name.
    public var familyName: String { name.split(separator: " ").dropFirst().joined(separator: " ") }
    /// The part after `@`.
    public var domain: String { String(email.split(separator: "@").last ?? "") }

    /// Hex of SHA-256 over a provider-specific label and the address: the root of every stable id.
    func digest(_ label: String) -> String { SHA256.hex(label + ":" + email) }
}
