import Foundation

/// Reads the `branding` section of the configuration file:
///
/// ```json
/// "branding": { "product_name": "Acme", "logo": "acme.svg",
///               "colors": { "primary": "#0b5cad", "background": "#ffffff", "text": "#1a1a1a" },
///               "extra_css": "acme.css",
///               "support_links": [{ "label": "Help", "url": "https://acme.example/help" }] }
/// ```
/// File paths are relative to the configuration file. Every check runs at start-up, so a missing file or
/// a palette that fails WCAG AA stops the server with the key at fault instead of serving a broken page.
enum BrandingConfigParser {
    static let knownKeys: Set<String> = ["product_name", "logo", "colors", "extra_css", "support_links", "provider_marks", "default_language", "templates_dir"]
    static let maximumFileBytes = 512 * 1024
    static let logoTypes = ["svg": "image/svg+xml", "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "webp": "image/webp"]

    static func parse(_ values: [String: Any], into branding: inout Branding, baseDirectory: String) throws(ConfigurationError) {
        for key in values.keys where !knownKeys.contains(key) {
            throw ConfigurationError(key: "branding.\(key)", problem: "unknown setting")
        }
        if let value = values["product_name"] {
            guard let name = (value as? String)?.trimmingCharacters(in: .whitespacesAndNewlines), !name.isEmpty, name.count <= 80 else {
                throw ConfigurationError(key: "branding.product_name", problem: "must be a non-empty string of at most 80 characters")
            }
            branding.productName = name
        }
        if let value = values["default_language"] {
            guard let tag = value as? String, Languages.shippedTags.contains(tag) else {
                throw ConfigurationError(key: "branding.default_language",
                                         problem: "must be one of \(Languages.shippedTags.joined(separator: ", "))")
            }
            branding.defaultLanguage = tag
        }
        if let value = values["templates_dir"] {
            guard let path = value as? String, !path.isEmpty else {
                throw ConfigurationError(key: "branding.templates_dir", problem: "must be a folder path")
            }
            branding.templates = try PageTemplates.load(directory: path.hasPrefix("/") ? path : baseDirectory + "/" + path)
        }
        if let value = values["logo"] {
            guard let text = value as? String, !text.isEmpty else {
                throw ConfigurationError(key: "branding.logo", problem: "must be an https URL or a file path")
            }
            branding.logo = try logo(text, baseDirectory: baseDirectory)
        }
        if let value = values["colors"] {
            guard let colors = value as? [String: Any] else {
                throw ConfigurationError(key: "branding.colors", problem: "must be an object with primary, background and text")
            }
            for key in colors.keys where !["primary", "background", "text"].contains(key) {
                throw ConfigurationError(key: "branding.colors.\(key)", problem: "unknown setting (primary, background, text)")
            }
            func color(_ key: String, _ fallback: BrandColor) throws(ConfigurationError) -> BrandColor {
                guard let raw = colors[key] else { return fallback }
                guard let text = raw as? String, let parsed = BrandColor(hex: text) else {
                    throw ConfigurationError(key: "branding.colors.\(key)", problem: "must be a hex colour such as \"#0b5cad\"")
                }
                return parsed
            }
            let standard = BrandPalette.standard
            branding.palette = try BrandPalette(primary: color("primary", standard.primary),
                                                background: color("background", standard.background),
                                                text: color("text", standard.text))
        }
        if let value = values["extra_css"] {
            guard let path = value as? String, !path.isEmpty else {
                throw ConfigurationError(key: "branding.extra_css", problem: "must be a file path")
            }
            let bytes = try read(path, key: "branding.extra_css", baseDirectory: baseDirectory)
            guard let css = String(bytes: bytes, encoding: .utf8) else {
                throw ConfigurationError(key: "branding.extra_css", problem: "\(path) is not UTF-8 text")
            }
            branding.extraCSS = css
        }
        if let value = values["provider_marks"] {
            guard let marks = value as? [String: Any] else {
                throw ConfigurationError(key: "branding.provider_marks", problem: "must be an object of provider id to file path")
            }
            for (id, raw) in marks {
                let key = "branding.provider_marks.\(id)"
                guard !id.isEmpty, id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
                    throw ConfigurationError(key: key, problem: "a provider id is letters, digits, - and _")
                }
                guard let path = raw as? String, !path.contains("://"), let type = logoTypes[(path as NSString).pathExtension.lowercased()] else {
                    throw ConfigurationError(key: key, problem: "must be a local .svg, .png, .jpg, .jpeg or .webp file")
                }
                branding.providerMarks[id] = .file(bytes: try read(path, key: key, baseDirectory: baseDirectory), contentType: type)
            }
        }
        if let value = values["support_links"] {
            guard let list = value as? [Any] else {
                throw ConfigurationError(key: "branding.support_links", problem: "must be an array of {\"label\", \"url\"} objects")
            }
            branding.supportLinks = []
            for (index, item) in list.enumerated() {
                guard let object = item as? [String: Any], Set(object.keys) == ["label", "url"],
                      let label = object["label"] as? String, !label.isEmpty,
                      let url = object["url"] as? String, isLinkTarget(url) else {
                    throw ConfigurationError(key: "branding.support_links[\(index)]",
                                             problem: "must be {\"label\": text, \"url\": an https, mailto: or same-site /path URL}")
                }
                branding.supportLinks.append(Branding.SupportLink(label: label, url: url))
            }
        }
    }

    static func isLinkTarget(_ text: String) -> Bool {
        if text.hasPrefix("mailto:") { return text.count > 7 }
        if text.hasPrefix("/") { return !text.hasPrefix("//") }
        guard let url = URL(string: text), url.scheme == "https", url.host != nil else { return false }
        return true
    }

    static func logo(_ text: String, baseDirectory: String) throws(ConfigurationError) -> Branding.Logo {
        if text.contains("://") {
            guard let url = URL(string: text), url.scheme == "https", url.host != nil else {
                throw ConfigurationError(key: "branding.logo", problem: "a logo URL must be https, got \"\(text)\"")
            }
            return .url(url)
        }
        let fileExtension = (text as NSString).pathExtension.lowercased()
        guard let type = logoTypes[fileExtension] else {
            throw ConfigurationError(key: "branding.logo", problem: "must end in .svg, .png, .jpg, .jpeg or .webp, got \"\(text)\"")
        }
        return .file(bytes: try read(text, key: "branding.logo", baseDirectory: baseDirectory), contentType: type)
    }

    static func read(_ path: String, key: String, baseDirectory: String) throws(ConfigurationError) -> [UInt8] {
        let full = path.hasPrefix("/") ? path : (baseDirectory as NSString).appendingPathComponent(path)
        guard let data = FileManager.default.contents(atPath: full) else {
            throw ConfigurationError(key: key, problem: "cannot read \(full)")
        }
        guard data.count <= maximumFileBytes else {
            throw ConfigurationError(key: key, problem: "\(full) is larger than \(maximumFileBytes / 1024) KiB")
        }
        return Array(data)
    }
}
