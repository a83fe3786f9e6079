import Foundation
@testable import GatehouseServer
import GatehouseHTTP
import GatehouseTesting
import Testing

/// `branding.templates_dir` as docs/templates.md describes it: the layout, a page block and a mail replaced,
/// escaping kept, and a malformed template stopping start-up with its file and line.
@Suite struct TemplateOverrideTests {
    /// A configuration folder with `templates/` beside the JSON file; `files`: path under templates → text.
    static func configuration(_ files: [String: String], branding: String = #""product_name": "Acme Cloud""#) throws -> GatehouseConfiguration {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gh-templates-\(UUID().uuidString)")
        for (path, text) in files {
            let url = folder.appendingPathComponent("templates/" + path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("templates"), withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("gatehouse.json").path
        try #"{"branding": {\#(branding), "templates_dir": "templates"}}"#.write(toFile: path, atomically: true, encoding: .utf8)
        return try GatehouseConfiguration.load(environment: [:], configPath: path)
    }

    /// docs/templates.md's example layout and sign-in block, exactly as documented.
    static func documentedExample() throws -> [String: String] {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("docs/templates.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        let blocks = text.matches(of: /`templates\/([a-z\/-]+\.html)`:\n\n```html\n((?s).*?)```/)
        return Dictionary(uniqueKeysWithValues: blocks.map { (String($0.1), String($0.2)) })
    }

    @Test func theDocumentedLayoutAndBlockRenderEveryPageInTheReadersLanguage() async throws {
        let files = try Self.documentedExample()
        #expect(Set(files.keys) == ["layout.html", "pages/sign-in.html"])
        let branding = try Self.configuration(files).branding
        let gatehouse = try await TestGatehouse.make { $0.branding = branding }
        let browser = gatehouse.browser()
        for tag in Languages.shippedTags {
            var headers = HTTPHeaders()
            headers.set("Accept-Language", tag)
            let page = try await browser.send(.get, "/sign-in", headers: headers, body: [])
            #expect(page.text.contains(#"<html lang="\#(tag)" dir="\#(tag == "ar" ? "rtl" : "ltr")">"#), "\(tag)")
            #expect(page.text.contains(#"<header class="acme-header">"#), "\(tag): the operator's layout")
            #expect(page.text.contains(#"<p class="acme-welcome">Acme Cloud</p>"#), "\(tag): the page's block")
            #expect(page.text.contains("<h1>\(Languages.builtIn.texts(tag)["sign_in.title"])</h1>"), "\(tag)")
            #expect(page.text.contains(#"action="/sign-in""#), "\(tag): the page's own form inside the block")
        }
        // A page without a block still goes through the layout.
        let signUp = try await browser.get("/sign-up")
        #expect(signUp.text.contains(#"<header class="acme-header">"#) && !signUp.text.contains("acme-welcome"))
    }

    @Test func valuesAreEscapedInTheOperatorsMarkup() async throws {
        let branding = try Self.configuration(["layout.html": "<html lang=\"{{lang}}\"><title>{{title}}</title><b>{{product_name}}</b>{{body}}</html>"],
                                              branding: #""product_name": "A<b>&\"Co""#).branding
        let gatehouse = try await TestGatehouse.make { $0.branding = branding }
        let page = try await gatehouse.browser().get("/sign-in")
        #expect(page.text.contains("<b>A&lt;b&gt;&amp;&quot;Co</b>"))
        #expect(!page.text.contains("<b>A<b>"))
    }

    @Test func aMailTemplateWordsTheMail() async throws {
        let branding = try Self.configuration(["mails/verifyEmail.txt": "Subject: Welcome to {{product}}\n\nConfirm: {{link}}\n"]).branding
        let gatehouse = try await TestGatehouse.make { $0.branding = branding }
        let browser = gatehouse.browser()
        let answer = try await browser.submit("/sign-up", to: "/sign-up", [("email", "new@example.com"), ("password", "a long enough password")])
        #expect(answer.status == 303, "\(answer.status) \(answer.text.prefix(600))")
        let link = await gatehouse.mailer.link(to: "new@example.com", containing: "/email/verify/")
        let mail = try #require(gatehouse.mailer.sent.all.last { $0.to == "new@example.com" })
        #expect(link != nil && mail.subject == "Welcome to Acme Cloud" && mail.textBody.hasPrefix("Confirm: http"))
    }

    @Test(arguments: [
        ("layout.html", "<html>\n<body>\n{{#if demo}}\n</body>", "layout.html:3: {{#if demo}} is never closed with {{/if}}"),
        ("pages/sign-in.html", "{{content}}\n{{/each}}", "sign-in.html:2: {{/each}} without an open block"),
        ("layout.html", "{{ secrets }}", "layout.html: `secrets` is not a value this template gets"),
        ("pages/settings.html", "x", "pages/settings.html is not a template Gatehouse uses"),
        ("mails/verifyEmail.txt", "Hello {{link}}", "verifyEmail.txt:1: a mail template starts with `Subject: …`"),
    ])
    func aBadTemplateStopsStartUpNamingTheFileAndLine(file: String, text: String, message: String) throws {
        #expect {
            _ = try Self.configuration([file: text])
        } throws: { error in
            guard let error = error as? ConfigurationError else { return false }
            return error.key == "branding.templates_dir" && "\(error)".contains(message)
        }
    }
}
