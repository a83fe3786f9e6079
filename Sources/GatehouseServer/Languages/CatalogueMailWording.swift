import GatehouseIdentity

/// The mails' words from the catalogues (`mail.*`), in the recipient's language, signed with the product's name.
struct CatalogueMailWording: MailWording {
    let languages: Languages
    let productName: String
    /// The operator's mail templates (`mails/<mail>.txt`), used instead of the catalogue's words.
    var templates = PageTemplates.none

    func message(_ kind: MailKind, to recipient: String, language: String?, values: [String: String]) -> MailMessage {
        let t = languages.texts(language.flatMap(languages.match) ?? languages.defaultTag)
        var values = values
        values["product"] = productName
        values["lang"] = t.tag
        // The operator's template is in one language, which the server's default names best.
        if var templated = templates.mail(kind, to: recipient, values: values) {
            templated.language = languages.defaultTag
            return templated
        }
        let (subject, body) = switch kind {
        case .passwordReset: ("mail.reset.subject", "mail.reset.body")
        case .passwordResetNoAccount: ("mail.reset.subject", "mail.reset_no_account.body")
        case .passwordResetDisabled: ("mail.reset.subject", "mail.reset_disabled.body")
        case .verifyEmail: ("mail.verify.subject", "mail.verify.body")
        case .alreadyRegistered: ("mail.already_registered.subject", "mail.already_registered.body")
        case .emailChange: ("mail.email_change.subject", "mail.email_change.body")
        case .emailChangeNotice: ("mail.email_change_notice.subject", "mail.email_change_notice.body")
        case .passwordSetup: ("mail.password_setup.subject", "mail.password_setup.body")
        }
        return MailMessage(to: recipient, subject: t(subject, values),
                           textBody: t(body, values) + "\n\n" + t("mail.signature", values), language: t.tag)
    }
}
