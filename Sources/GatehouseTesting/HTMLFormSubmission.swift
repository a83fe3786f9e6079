import Foundation

/// Builds the body a browser would send for a rendered form (HTML's form-submission algorithm, for the
/// server's own simple markup): every named control in tree order, submit buttons left out except
/// the one clicked, which is included at its place. Attack tests submit forms this way, never as
/// hand-built bodies, so a field the page reflects (say, a second `decision`) is sent as a browser sends it.
public struct HTMLFormSubmission: Sendable {
    public let action: String
    public let method: String
    /// The controls of the form in tree order: (name, value, is a submit button).
    public let controls: [(name: String, value: String, isSubmitter: Bool)]

    /// The first form whose `action` is `action` (or the first form at all when nil).
    public init?(_ html: String, action wanted: String? = nil) {
        var rest = html[...]
        while let open = rest.range(of: "<form") {
            guard let tagEnd = rest[open.upperBound...].firstIndex(of: ">") else { return nil }
            let attributes = Self.attributes(String(rest[open.upperBound..<tagEnd]))
            let bodyStart = rest.index(after: tagEnd)
            let close = rest[bodyStart...].range(of: "</form>")?.lowerBound ?? rest.endIndex
            let formAction = attributes["action"] ?? ""
            if wanted == nil || formAction == wanted {
                action = formAction
                method = (attributes["method"] ?? "get").lowercased()
                controls = Self.controls(String(rest[bodyStart..<close]))
                return
            }
            rest = rest[close...]
        }
        return nil
    }

    /// The submitted fields when the submit button with this name and value is clicked (nil: no such button).
    public func fields(clicking name: String, value: String) -> [(String, String)]? {
        guard controls.contains(where: { $0.isSubmitter && $0.name == name && $0.value == value }) else { return nil }
        var clicked = false
        return controls.compactMap { control in
            if control.isSubmitter {
                guard !clicked, control.name == name, control.value == value else { return nil }
                clicked = true
            }
            return (control.name, control.value)
        }
    }

    /// Every named control of the form, in order, with its submitter flag.
    private static func controls(_ body: String) -> [(name: String, value: String, isSubmitter: Bool)] {
        var result: [(name: String, value: String, isSubmitter: Bool)] = []
        var rest = body[...]
        while let open = rest.range(of: "<") {
            let after = rest[open.upperBound...]
            guard let end = after.firstIndex(of: ">") else { break }
            let tag = String(after[..<end])
            rest = after[after.index(after: end)...]
            let lowered = tag.lowercased()
            let isInput = lowered.hasPrefix("input ") || lowered.hasPrefix("input\t")
            let isButton = lowered.hasPrefix("button ") || lowered == "button"
            let isTextarea = lowered.hasPrefix("textarea ")
            guard isInput || isButton || isTextarea else { continue }
            let attributes = attributes(String(tag.drop(while: { $0 != " " })))
            guard let name = attributes["name"], !name.isEmpty, attributes["disabled"] == nil else { continue }
            let type = (attributes["type"] ?? (isButton ? "submit" : "text")).lowercased()
            if isButton || type == "submit" || type == "image" {
                result.append((name, attributes["value"] ?? "", true))
            } else if type == "checkbox" || type == "radio" {
                if attributes["checked"] != nil { result.append((name, attributes["value"] ?? "on", false)) }
            } else if isTextarea {
                let text = rest.range(of: "</textarea>").map { String(rest[..<$0.lowerBound]) } ?? ""
                result.append((name, HTMLForm.unescape(text), false))
            } else if type != "button" && type != "reset" && type != "file" {
                result.append((name, attributes["value"] ?? "", false))
            }
        }
        return result
    }

    /// `name="value"` / `name='value'` / bare `name` attributes, unescaped.
    static func attributes(_ text: String) -> [String: String] {
        var result: [String: String] = [:]
        let chars = Array(text)
        var index = 0
        while index < chars.count {
            while index < chars.count, chars[index] == " " || chars[index] == "\n" || chars[index] == "\t" || chars[index] == "/" { index += 1 }
            var name = ""
            while index < chars.count, chars[index] != "=", chars[index] != " ", chars[index] != "\n", chars[index] != ">" {
                name.append(chars[index]); index += 1
            }
            guard !name.isEmpty else { index += 1; continue }
            var value = ""
            if index < chars.count, chars[index] == "=" {
                index += 1
                if index < chars.count, chars[index] == "\"" || chars[index] == "'" {
                    let quote = chars[index]; index += 1
                    while index < chars.count, chars[index] != quote { value.append(chars[index]); index += 1 }
                    index += 1
                } else {
                    while index < chars.count, chars[index] != " ", chars[index] != ">" { value.append(chars[index]); index += 1 }
                }
            }
            let key = name.lowercased()
            if result[key] == nil { result[key] = HTMLForm.unescape(value) }
        }
        return result
    }
}
