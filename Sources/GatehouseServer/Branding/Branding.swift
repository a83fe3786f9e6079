import Foundation

/// How the product presents itself on every page and mail (the `branding` section). Nothing here names
/// Gatehouse: a deployment shows its own product, and without a name it shows its own host.
public struct Branding: Sendable {
    /// The product's name in titles, headers, consent screens, errors and mails.
    public var productName: String
    public var logo: Logo?
    public var palette: BrandPalette = .standard
    /// The operator's own stylesheet, served after the built-in one (`branding.extra_css`, read at start-up).
    public var extraCSS: String?
    /// Help, privacy and terms links in every page's footer.
    public var supportLinks: [SupportLink] = []
    /// Provider marks (Apple's logo, Google's "G") by provider id, files the operator obtained from the
    /// provider under its terms; served at `/assets/marks/<id>` beside the button's words.
    public var providerMarks: [String: Logo] = [:]
    /// The language of pages for a reader who asks for none Gatehouse ships (`branding.default_language`).
    public var defaultLanguage = "en"
    /// The operator's layout, page blocks and mails (`branding.templates_dir`); none by default.
    var templates = PageTemplates.none

    /// A logo: a remote image or a file served from `/assets/logo`.
    public enum Logo: Sendable, Equatable {
        case url(URL)
        case file(bytes: [UInt8], contentType: String)
    }

    public struct SupportLink: Sendable, Equatable {
        public var label: String
        public var url: String
        public init(label: String, url: String) { self.label = label; self.url = url }
    }

    public init(productName: String) { self.productName = productName }

    /// The default brand for a public URL: its host name, which is what the address bar shows anyway.
    public static func standard(for publicURL: URL) -> Branding { Branding(productName: publicURL.host ?? "Sign in") }

    /// Where pages load the logo from.
    var logoSource: String? {
        switch logo {
        case .url(let url): url.absoluteString
        case .file: "/assets/logo"
        case nil: nil
        }
    }

    /// The origin a remote logo loads from, for the pages' `img-src`.
    var logoOrigin: String? {
        guard case .url(let url) = logo, let scheme = url.scheme, let host = url.host else { return nil }
        return "\(scheme)://\(host)" + (url.port.map { ":\($0)" } ?? "")
    }
}
