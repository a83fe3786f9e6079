/// The mails Identity sends, by what they say.
public enum MailKind: String, Sendable, CaseIterable {
    /// A password-reset link (`link`, `minutes`).
    case passwordReset
    /// A reset asked for an address no account uses (`sign_up`: where to create one).
    case passwordResetNoAccount
    /// A reset asked for a disabled account.
    case passwordResetDisabled
    /// An address to confirm (`link`, `forgot`: where a stranger's sign-up is undone).
    case verifyEmail
    /// A sign-up with an address that has an account (`sign_in`, `forgot`).
    case alreadyRegistered
    /// The link that moves an account to this new address (`link`, `hours`, `old`: the account's address now).
    case emailChange
    /// To the old address: a move to `new` was asked (`account`: the account page, `forgot`); no link.
    case emailChangeNotice
    /// A provider-only account's link to choose its first password (`link`, `minutes`).
    case passwordSetup
}

/// Words a mail in a language: the server's catalogues implement it; ``EnglishMailWording`` is the default.
public protocol MailWording: Sendable {
    /// The mail of `kind` to `recipient`, in `language` (a BCP 47 tag; nil: the server's default), with the
    /// named values (links, minutes) in it.
    func message(_ kind: MailKind, to recipient: String, language: String?, values: [String: String]) -> MailMessage
}

/// The mails in English, for Identity used alone (its tests, tools).
public struct EnglishMailWording: MailWording {
    public init() {}

    public func message(_ kind: MailKind, to recipient: String, language: String?, values: [String: String]) -> MailMessage {
        let value = { (name: String) in values[name] ?? "" }
        return switch kind {
        case .passwordReset:
            MailMessage(to: recipient, subject: "Reset your password", textBody: """
                Someone asked to reset the password of your account. If it was you, open this link within \
                \(value("minutes")) minutes:

                \(value("link"))

                If it was not you, ignore this email; your password stays as it is.
                """)
        case .passwordResetNoAccount:
            MailMessage(to: recipient, subject: "Reset your password", textBody: """
                Someone asked to reset the password of an account with this address, but no account uses it. \
                If it was you, you may have signed up with another address, or you can create an account at:

                \(value("sign_up"))

                If it was not you, ignore this email.
                """)
        case .passwordResetDisabled:
            MailMessage(to: recipient, subject: "Reset your password", textBody: """
                Someone asked to reset the password of your account, but the account is disabled. Contact the \
                administrator if you need it back.
                """)
        case .verifyEmail:
            MailMessage(to: recipient, subject: "Confirm your email address", textBody: """
                Confirm that this address is yours by opening:

                \(value("link"))

                If you did not create an account with this address, do not open the link; reset the password \
                instead at \(value("forgot")), which removes whatever the person who signed up \
                attached to the account.
                """)
        case .alreadyRegistered:
            MailMessage(to: recipient, subject: "You already have an account", textBody: """
                Someone tried to create an account with this address, which already has one. If it was you, \
                sign in at \(value("sign_in")) or choose a new password at \(value("forgot")).

                If it was not you, ignore this email; nothing has changed.
                """)
        case .emailChange:
            MailMessage(to: recipient, subject: "Confirm your new email address", textBody: """
                Someone asked to use this address for their account instead of \(value("old")). If it was you, confirm \
                the change by opening this link within \(value("hours")) hours:

                \(value("link"))

                If it was not you, ignore this email; nothing changes.
                """)
        case .emailChangeNotice:
            MailMessage(to: recipient, subject: "Your email address is about to change", textBody: """
                Someone signed in to your account asked to change its email address to \(value("new")). We sent a \
                link to that address; nothing changes until it is opened.

                If it was not you, sign in, end every other session and change your password at \(value("account")), \
                or reset it at \(value("forgot")).
                """)
        case .passwordSetup:
            MailMessage(to: recipient, subject: "Set a password for your account", textBody: """
                You asked to add a password to your account, so you can sign in with your email address as well. \
                Choose it by opening this link within \(value("minutes")) minutes:

                \(value("link"))

                If it was not you, ignore this email; your account stays as it is.
                """)
        }
    }
}
