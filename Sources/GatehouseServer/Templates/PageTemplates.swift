import Foundation
import GatehouseHTTP
import GatehouseIdentity

/// The operator's templates (`branding.templates_dir`, docs/templates.md), read and parsed at start-up:
/// `layout.html` (the page shell), `pages/<page>.html` (one page's block inside the shell) and
/// `mails/<mail>.txt` (a mail: its first line `Subject: …`, then the body). Any may be absent; the
/// built-in rendering is used for what is.
struct PageTemplates: Sendable {
    var layout: Template?
    var pages: [String: Template] = [:]
    var mails: [String: Template] = [:]

    /// The pages that can be given a block, by the id the file is named after.
    static let pageIDs: Set<String> = ["sign-in", "sign-up", "check-email", "forgot", "forgot-sent", "reset", "reset-done",
                                       "verify", "verify-done", "account", "preferences", "delete", "consent", "error"]
    /// The values the layout gets (docs/templates.md lists them).
    static let layoutNames: Set<String> = ["lang", "dir", "title", "product_name", "head", "banner", "brand", "nav", "body",
                                           "footer", "support_links", "label", "url", "signed_in", "demo", "page"]
    /// The values a page block gets: the layout's, with `content`, the page's own markup.
    static let pageNames: Set<String> = layoutNames.union(["content"])
    /// The values a mail gets; each mail uses those it has (docs/templates.md).
    static let mailNames: Set<String> = ["subject", "product", "lang", "link", "minutes", "sign_in", "sign_up", "forgot"]

    static let none = PageTemplates()

    /// Reads the folder; a template that does not parse, a file Gatehouse would never use or a value no
    /// template of that kind gets stops start-up with the file (and line) at fault.
    static func load(directory: String) throws(ConfigurationError) -> PageTemplates {
        var templates = PageTemplates()
        let root = URL(fileURLWithPath: directory)
        func read(_ relative: String) throws(ConfigurationError) -> Template? {
            let url = root.appendingPathComponent(relative)
            guard FileManager.default.fileExists(atPath: url.path) else { return nil }
            guard let data = FileManager.default.contents(atPath: url.path), let text = String(data: data, encoding: .utf8) else {
                throw ConfigurationError(key: "branding.templates_dir", problem: "\(url.path) is not readable UTF-8 text")
            }
            do { return try Template(parsing: text, file: url.path) } catch {
                throw ConfigurationError(key: "branding.templates_dir", problem: error.description)
            }
        }
        func check(_ template: Template?, _ allowed: Set<String>) throws(ConfigurationError) {
            guard let template, let unknown = template.names.subtracting(allowed).sorted().first else { return }
            throw ConfigurationError(key: "branding.templates_dir",
                                     problem: "\(template.file): `\(unknown)` is not a value this template gets (docs/templates.md)")
        }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isFolder), isFolder.boolValue else {
            throw ConfigurationError(key: "branding.templates_dir", problem: "\(directory) is not a folder")
        }
        templates.layout = try read("layout.html")
        try check(templates.layout, layoutNames)
        for (folder, allowed, ext) in [("pages", pageIDs, "html"), ("mails", Set(MailKind.allCases.map(\.rawValue)), "txt")] {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(folder).path)) ?? []
            for name in names.sorted() where !name.hasPrefix(".") {
                let id = (name as NSString).deletingPathExtension
                guard (name as NSString).pathExtension == ext, allowed.contains(id) else {
                    throw ConfigurationError(key: "branding.templates_dir",
                                             problem: "\(folder)/\(name) is not a template Gatehouse uses (one of \(allowed.sorted().map { "\($0).\(ext)" }.joined(separator: ", ")))")
                }
                let template = try read("\(folder)/\(name)")
                try check(template, folder == "pages" ? pageNames : mailNames)
                if folder == "pages" { templates.pages[id] = template } else { templates.mails[id] = template }
            }
        }
        for template in templates.mails.values where !template.renderText([:]).hasPrefix("Subject:") {
            throw ConfigurationError(key: "branding.templates_dir", problem: "\(template.file):1: a mail template starts with `Subject: …`")
        }
        return templates
    }

    /// A mail from its template: the first line's subject, the rest the body (plain text, nothing escaped).
    func mail(_ kind: MailKind, to recipient: String, values: [String: String]) -> MailMessage? {
        guard let template = mails[kind.rawValue] else { return nil }
        let text = template.renderText(values.mapValues { .text($0) })
        let (first, rest) = text.firstIndex(of: "\n").map { (text[..<$0], text[text.index(after: $0)...]) } ?? (text[...], ""[...])
        let subject = first.dropFirst("Subject:".count).trimmingSpaces
        return MailMessage(to: recipient, subject: subject, textBody: String(rest.drop { $0 == "\n" }))
    }
}
