import Foundation
import GatehouseHTTP
import GatehouseIdentity

/// Gives every mail the product's face before it goes: an HTML alternative in the brand's colours with its
/// name (and logo), every link clickable, and a footer naming the product and its public URL — in the text
/// part too, so a reader can tell where the mail came from. The words stay the sender's; only the format is
/// decided here, in the mail's language (`lang`, `dir`, the button's words). Wraps the real mailer (SMTP or the log).
struct BrandedMailer: Mailer {
    let inner: any Mailer
    let branding: Branding
    let publicURL: URL
    /// The catalogues for the words the format adds (the button) and the direction of the mail's language.
    let languages: Languages

    init(inner: any Mailer, branding: Branding, publicURL: URL, languages: Languages? = nil) {
        self.inner = inner
        self.branding = branding
        self.publicURL = publicURL
        self.languages = languages ?? Languages(catalogues: Languages.builtIn.catalogues, defaultTag: branding.defaultLanguage)
    }

    func send(_ message: MailMessage) async throws {
        try await inner.send(branded(message))
    }

    func branded(_ message: MailMessage) -> MailMessage {
        var message = message
        let site = publicURL.absoluteString.trimmingTrailingSlash()
        message.language = message.language ?? languages.defaultTag
        message.htmlBody = message.htmlBody ?? html(message).text
        let text = message.textBody.trimmingTrailingNewlines()
        // The wording's own sign-off may name the product already: then only the address follows it.
        let signed = text.split(separator: "\n").last?.contains(branding.productName) ?? false
        // "-- " opens a signature (RFC 3676 §4.3): readers fold it away from the message itself.
        message.textBody = text + (signed ? "\n\(site)\n" : "\n\n-- \n\(branding.productName)\n\(site)\n")
        return message
    }

    /// Paragraphs from the blank-line-separated text; a paragraph that is only a link becomes a button.
    func html(_ message: MailMessage) -> HTML {
        let palette = branding.palette
        let t = languages.texts(message.language.flatMap(languages.match) ?? languages.defaultTag)
        let paragraphs = message.textBody.trimmingTrailingNewlines()
            .components(separatedBy: "\n\n").filter { !$0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }
        let body = paragraphs.map { paragraph -> HTML in
            let trimmed = paragraph.trimmingCharacters(in: .whitespacesAndNewlines)
            if Self.isLink(trimmed), !trimmed.contains(where: \.isWhitespace) {
                return """
                    <p style="margin:24px 0"><a href="\(trimmed)" style="display:inline-block;padding:12px 20px;border-radius:6px;\
                    background:\(palette.primary.description);color:\(palette.onPrimary.description);text-decoration:none;font-weight:600">\
                    \(t["mail.open_link"])</a></p>
                    <p style="margin:0 0 16px;font-size:13px;color:\(palette.muted.description);word-break:break-all">\(Self.linkified(trimmed, color: palette.primary.description))</p>
                    """
            }
            let lines = paragraph.components(separatedBy: "\n").map { Self.linkified($0, color: palette.primary.description) }
            return "<p style=\"margin:0 0 16px\">\(lines.joined(separator: "<br>\n"))</p>\n"
        }
        let site = publicURL.absoluteString.trimmingTrailingSlash()
        let logo: HTML = switch branding.logo {
        case .url(let url): #"<img src="\#(url.absoluteString)" alt="\#(branding.productName)" height="32" style="height:32px;vertical-align:middle">"#
        case .file: #"<img src="\#(site + "/assets/logo")" alt="\#(branding.productName)" height="32" style="height:32px;vertical-align:middle">"#
        case nil: "\(branding.productName)"
        }
        return """
            <!doctype html>
            <html lang="\(t.tag)" dir="\(t.direction)"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(message.subject)</title></head>
            <body style="margin:0;padding:24px 12px;background:\(palette.background.description);color:\(palette.text.description);\
            font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;font-size:16px;line-height:1.5">
            <div style="max-width:560px;margin:0 auto">
            <p style="margin:0 0 24px;font-size:20px;font-weight:700">\(logo)</p>
            \(body)
            <hr style="border:0;border-top:1px solid \(palette.line.description);margin:24px 0">
            <p style="margin:0;font-size:13px;color:\(palette.muted.description)">\(branding.productName) · <a href="\(site)" dir="ltr" style="color:\(palette.primary.description)">\(site)</a></p>
            </div></body></html>
            """
    }

    static func isLink(_ text: String) -> Bool { text.hasPrefix("https://") || text.hasPrefix("http://") }

    /// The line escaped, with each `http(s)://` address a link, kept left to right inside a right-to-left sentence.
    /// An address may start inside a word (Japanese sets no space before it: `、https://…`); trailing sentence
    /// punctuation, Latin, CJK or Arabic, stays outside it.
    static func linkified(_ line: String, color: String) -> HTML {
        var out = HTML.empty
        var word = ""
        func flush() {
            guard !word.isEmpty else { return }
            if let start = word.range(of: "https://")?.lowerBound ?? word.range(of: "http://")?.lowerBound {
                var url = word[start...]
                var tail = ""
                while let last = url.last, ".,;:!?)。、，．！？）」』】،؛؟".contains(last) { tail = String(last) + tail; url = url.dropLast() }
                out += "\(String(word[..<start]))<a href=\"\(String(url))\" dir=\"ltr\" style=\"color:\(color)\">\(String(url))</a>\(tail)"
            } else {
                out += "\(word)"
            }
            word = ""
        }
        for character in line {
            if character.isWhitespace { flush(); out += "\(String(character))" } else { word.append(character) }
        }
        flush()
        return out
    }
}

fileprivate extension String {
    func trimmingTrailingNewlines() -> String {
        var text = Substring(self)
        while let last = text.last, last.isNewline { text = text.dropLast() }
        return String(text)
    }

    func trimmingTrailingSlash() -> String { hasSuffix("/") ? String(dropLast()) : self }
}
