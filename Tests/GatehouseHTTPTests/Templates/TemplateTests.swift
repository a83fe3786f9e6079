import GatehouseHTTP
import Testing

/// The operator's template language: values escaped unless they are markup, conditionals, loops, and a
/// parse error naming the file and line of the tag at fault.
@Suite struct TemplateTests {
    func parse(_ text: String) throws -> Template { try Template(parsing: text, file: "t.html") }

    func failure(_ text: String) -> Template.ParseError? {
        do { _ = try Template(parsing: text, file: "t.html"); return nil } catch { return error }
    }

    @Test func valuesAreEscapedUnlessTheyAreMarkup() throws {
        let template = try parse("<p>{{ name }}</p>{{body}}")
        let html = template.render(["name": .text("<script>&\""), "body": .html("<b>ok</b>")])
        #expect(html.text == "<p>&lt;script&gt;&amp;&quot;</p><b>ok</b>")
        // A mail is plain text: nothing escaped.
        #expect(template.renderText(["name": .text("a<b")]) == "<p>a<b</p>")
    }

    @Test func conditionalsAndLoops() throws {
        let template = try parse("{{#if links}}<ul>{{#each links}}<li>{{label}} of {{product}}</li>{{/each}}</ul>{{else}}none{{/if}}")
        let links: Template.Value = .list([["label": .text("Help")], ["label": .text("A&B")]])
        #expect(template.render(["links": links, "product": .text("Acme")]).text == "<ul><li>Help of Acme</li><li>A&amp;B of Acme</li></ul>")
        #expect(template.render(["links": .list([])]).text == "none")
        #expect(template.render([:]).text == "none")
        #expect(try parse("{{#if on}}yes{{/if}}").render(["on": .flag(false)]).text == "")
        #expect(template.names == ["links", "label", "product"])
    }

    @Test func commentsAndStrayBracesAreText() throws {
        #expect(try parse("a {{! a note }}b { c } }}").render([:]).text == "a b { c } }}")
    }

    @Test func errorsNameTheLineOfTheTagAtFault() {
        #expect(failure("one\ntwo {{#if x}}\nthree") == .init(file: "t.html", line: 2, reason: "{{#if x}} is never closed with {{/if}}"))
        #expect(failure("{{#if x}}\n\n{{/each}}")?.line == 3)
        #expect(failure("a\n{{/if}}")?.line == 2)
        #expect(failure("a\nb\n{{ name")?.line == 3)
        #expect(failure("{{Name}}")?.reason.contains("is not a name") == true)
        #expect(failure("{{#for x}}{{/for}}")?.reason.contains("unknown block") == true)
        #expect(failure("{{}}")?.reason == "an empty {{}}")
        #expect(failure("{{ a {{ b }}")?.line == 1)
        #expect(failure(String(repeating: "{{#if a}}", count: 17) + String(repeating: "{{/if}}", count: 17))?.reason.contains("deeper") == true)
        #expect(failure("{{#if a}}{{else}}{{else}}{{/if}}") != nil)
    }
}
