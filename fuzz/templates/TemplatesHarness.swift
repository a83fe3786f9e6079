import FuzzSupport
import GatehouseHTTP

/// The operator's template language (`Template`): any bytes parse or fail with a line inside the text;
/// a parsed template renders without trapping, escapes every text value it shows, and a template
/// without tags renders to exactly itself.
func fuzzTemplates(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = String(decoding: bytes(data, size), as: UTF8.self)
    // Lines by the newline byte, as the parser counts them: Swift's `Character` split sees "\r\n" as one
    // character that is not "\n", so it would undercount a file with Windows line ends.
    let lines = text.utf8.filter { $0 == UInt8(ascii: "\n") }.count + 1
    let template: Template
    do { template = try Template(parsing: text, file: "fuzz") } catch {
        require(error.line >= 1 && error.line <= lines, "error line \(error.line) outside 1...\(lines)")
        return 0
    }
    let hostile = "<script>&\"'"
    var values: [String: Template.Value] = [:]
    for name in template.names { values[name] = .text(hostile) }
    let html = template.render(values).text
    require(text.contains(hostile) || !html.contains(hostile), "a text value reached the markup unescaped")
    // The same names as lists and flags: loops and conditionals over every shape end.
    for name in template.names { values[name] = .list([[name: .text(hostile)], [:]]) }
    _ = template.render(values)
    for name in template.names { values[name] = .flag(true) }
    _ = template.renderText(values)
    if !text.contains("{{") {
        require(template.render([:]).text == text, "a template without tags is not its own rendering")
    }
    return 0
}
