import Foundation
import GatehouseHTTP
import GatehouseIdentity
import GatehouseStore

/// `/account/preferences`: the language of pages and mails and the time zone of the times on pages. Its
/// own page, so the account page does not carry every zone's name.
extension AccountPages {
    func registerPreferences(into router: inout Router) {
        router.get("/account/preferences", head: .servedByGet) { request async throws in
            let web = try await reader.read(request)
            guard let active = web.active else { return signInRedirect(request) }
            return preferencesPage(web: web, active: active, error: nil)
        }
        router.post("/account/preferences") { request async throws in
            let (form, web, active) = try await reader.signedInForm(request)
            let language = try field(form, "language", max: 35), zone = try field(form, "time_zone", max: 64)
            do {
                _ = try await accounts.savePreferences(userId: active.user.id, language: language.isEmpty ? nil : language,
                                                       timeZone: zone.isEmpty || zone == "UTC" ? nil : zone,
                                                       languages: Set(Languages.shippedTags))
                return .redirect(to: "/account?notice=language-saved")
            } catch let error as ReaderPreferenceError {
                let message = web.texts[error == .unknownLanguage ? "preferences.unknown_language" : "preferences.unknown_time_zone"]
                return preferencesPage(web: web, active: active, error: message, status: .unprocessableContent)
            }
        }
    }

    /// Every IANA zone the system knows, once: the page's longest list.
    static let timeZones = TimeZone.knownTimeZoneIdentifiers.filter { $0 != "UTC" && $0 != "GMT" }.sorted()

    func preferencesPage(web: WebSession, active: ActiveSession, error: String?, status: HTTPStatus = .ok) -> Response {
        let user = active.user
        let t = web.texts
        let languages = context.layout.languages.catalogues.map { catalogue -> HTML in
            let selected: HTML = user.language == catalogue.tag ? " selected" : .empty
            return #"<option value="\#(catalogue.tag)" lang="\#(catalogue.tag)"\#(selected)>\#(catalogue.name)</option>"#
        }
        let zones = Self.timeZones.map { zone -> HTML in
            #"<option\#(user.timeZone == zone ? " selected" : HTML.empty)>\#(zone)</option>"#
        }
        return context.page(t["preferences.title"], """
            \(PageLayout.notice(error))
            <form method="post" action="/account/preferences">\(context.hidden("csrf_token", reader.token(for: web)))
            <label for="language">\(t["preferences.language"])</label>
            <select id="language" name="language"><option value="">\(t["preferences.browser_language"])</option>\(languages)</select>
            <label for="time_zone">\(t["preferences.time_zone"])</label>
            <select id="time_zone" name="time_zone"><option value="UTC">UTC</option>\(zones)</select>
            <p class="muted">\(t["preferences.time_zone_hint"])</p>
            <button type="submit">\(t["preferences.submit"])</button></form>
            <p><a href="/account">\(t["preferences.back"])</a></p>
            """, web: web, status: status, id: "preferences")
    }
}
