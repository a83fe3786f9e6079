import Foundation
import GatehouseHTTP
import GatehouseIdentity
import GatehouseStore

/// The screens more than one page route renders: the account page (after an account change or a provider
/// link or unlink) and its parts. Shared through ``PageContext`` so no route reaches into another route's struct.
extension PageContext {
    /// `invalid`: the fields the error is about (nil: both, when there is an error).
    func signInPage(web: WebSession, email: String, returnTo: String?, error: String?, info: String? = nil,
                    status: HTTPStatus = .ok, invalid: Set<String>? = nil) -> Response {
        let t = web.texts
        let invalid = invalid ?? (error == nil ? [] : ["email", "password"])
        return page(t["sign_in.title"], """
            \(PageLayout.notice(error))\(PageLayout.notice(info, kind: "info"))
            <form method="post" action="/sign-in">
            \(hidden("csrf_token", reader.token(for: web)))\(returnTo.map { hidden("return_to", $0) } ?? "")
            <label for="email">\(t["field.email"])</label><input id="email" name="email" type="email" autocomplete="username webauthn" required value="\(email)"\(PageLayout.invalid("email", in: invalid))>
            <label for="password">\(t["field.password"])</label><input id="password" name="password" type="password" autocomplete="current-password" required\(PageLayout.invalid("password", in: invalid))>
            <button type="submit">\(t["sign_in.submit"])</button>
            </form>
            \(providers.signInButtons(csrf: reader.token(for: web), returnTo: returnTo, texts: t))
            \(PasskeyScreens.signInButton(csrf: reader.token(for: web), returnTo: returnTo, texts: t))
            <p><a href="/password/forgot">\(t["sign_in.forgot"])</a> · <a href="/sign-up">\(t["sign_in.create_account"])</a></p>
            """, web: web, status: status, id: "sign-in")
    }

    /// `overview`: the lists when the caller read them with the session (`readWithOverview`); read here otherwise.
    func accountPage(web: WebSession, active: ActiveSession, overview read: AccountOverview? = nil, notice: String? = nil,
                     error: String? = nil, status: HTTPStatus = .ok) async throws -> Response {
        let t = web.texts
        let user = active.user
        // One HMAC per page: the layout's sign-out form and every form below carry the same token.
        let token = reader.token(for: web)
        let csrf = hidden("csrf_token", token)
        // Sessions, identities, consents and grants in one trip to the database, not four.
        let overview = if let read { read } else { try await sessions.accountOverview(userId: user.id) }
        let rows = overview.sessions.map { session -> HTML in
            let current = session.idHash == active.session.idHash
            let when = t.html("account.session_detail", ["address": "\(session.ip ?? t["account.unknown_address"])",
                                                          "signed_in": Self.time(session.createdAt, t),
                                                          "last_seen": Self.time(session.lastSeenAt, t)])
            return """
                <tr><td>\(Self.describe(userAgent: session.userAgent, t))\(current ? " <strong>\(t["account.this_browser"])</strong>" : HTML.empty)<br>
                <span class="muted">\(when)</span></td>
                <td><form method="post" action="/account/sessions/\(session.idHash.hex)/end">\(csrf)
                <button type="submit" class="secondary" aria-label="\(t["account.end_session_label"])">\(t["account.end_session"])</button></form></td></tr>
                """
        }.joined(separator: "\n")
        let methods = providers.methods(user: user, identities: overview.identities, csrf: token, texts: t)
        let apps = try await authorizedApps(consents: overview.consents, grants: overview.grants, csrf: csrf, texts: t)
        let credentials = try await passkeys.credentials(of: user.id)
        let passkeys = PasskeyScreens.accountSection(credentials, csrf: csrf, texts: t)
        let twoStep: HTML = user.passwordHash == nil ? .empty
            : Self.secondFactorSection(try await secondFactors.status(userID: user.id), hasSecurityKey: !credentials.isEmpty, csrf: csrf, texts: t)
        return page(t["account.title"], """
            \(PageLayout.notice(notice, kind: "info"))\(PageLayout.notice(error))
            <p><strong>\(user.displayName ?? user.email)</strong><br><span class="muted">\(user.email) · \(user.emailVerified ? t["account.email_confirmed"] : t["account.email_unconfirmed"])</span></p>
            <h2>\(t["account.methods"])</h2><ul id="methods">\(methods.items)</ul>\(methods.linkForms)
            \(passkeys)
            \(twoStep)
            <h2>\(t["account.applications"])</h2>
            \(apps)
            <h2>\(t["account.sessions"])</h2>
            <table id="sessions">\(rows)</table>
            <form method="post" action="/account/sessions/end-others">\(csrf)<button type="submit" class="secondary">\(t["account.end_others"])</button></form>
            <h2>\(t["account.preferences"])</h2>
            <p id="preferences">\(t.catalogue.name) · \(user.timeZone ?? "UTC") <a href="/account/preferences">\(t["account.preferences_change"])</a></p>
            \(selfServiceSections(user: user, csrf: csrf, texts: t))
            <h2>\(t["account.delete"])</h2>
            <p><a href="/account/delete">\(t["account.delete_link"])</a> <span class="muted">\(t["account.delete_hint"])</span></p>
            """, web: web, status: status, csrfToken: token, id: "account")
    }

    /// Applications the user consented to or that hold refresh tokens, each with a revoke button.
    func authorizedApps(consents: [Consent], grants: [ActiveGrant], csrf: HTML, texts t: Texts) async throws -> HTML {
        let clientIDs = Array(Set(consents.map(\.clientId) + grants.map(\.clientId))).sorted()
        guard !clientIDs.isEmpty else { return #"<p class="muted">\#(t["account.no_applications"])</p>"# }
        var rows: [HTML] = []
        for clientID in clientIDs {
            // The registry's short-lived client cache: a store read (and its JSON columns) per client per view cost more.
            let name = try await clients.find(id: clientID)?.name ?? clientID
            let scope = consents.first { $0.clientId == clientID }?.scopes.joined(separator: " ")
                ?? grants.first { $0.clientId == clientID }?.scope ?? ""
            rows.append("""
                <tr><td>\(name)<br><span class="muted">\(scope)</span></td>
                <td><form method="post" action="/account/apps/\(PercentDecoding.encode(clientID))/revoke">\(csrf)
                <button type="submit" class="secondary">\(t["account.revoke"])</button></form></td></tr>
                """)
        }
        return #"<table id="apps">"# + rows.joined() + "</table>"
    }

    /// `2026-11-29 20:31 UTC`, through gmtime_r: a DateFormatter costs more than the rest of the page.
    /// Four-digit years are written byte by byte into one 20-byte string (the interpolated version built
    /// five small strings per date, two dates per session row); any other year takes ``formatSlowly(_:)``.
    static func format(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let year = Int(parts.tm_year) + 1900
        guard (1000...9999).contains(year) else { return formatSlowly(parts) }
        return String(unsafeUninitializedCapacity: 20) { out in
            func digits(_ value: Int, _ at: Int, _ count: Int) {
                var value = value
                for index in stride(from: at + count - 1, through: at, by: -1) {
                    out[index] = UInt8(ascii: "0") + UInt8(value % 10)
                    value /= 10
                }
            }
            digits(year, 0, 4); out[4] = UInt8(ascii: "-")
            digits(Int(parts.tm_mon) + 1, 5, 2); out[7] = UInt8(ascii: "-")
            digits(Int(parts.tm_mday), 8, 2); out[10] = UInt8(ascii: " ")
            digits(Int(parts.tm_hour), 11, 2); out[13] = UInt8(ascii: ":")
            digits(Int(parts.tm_min), 14, 2)
            out[16] = UInt8(ascii: " "); out[17] = UInt8(ascii: "U"); out[18] = UInt8(ascii: "T"); out[19] = UInt8(ascii: "C")
            return 20
        }
    }

    /// A time as `<time datetime>` (UTC) whose text is in the reader's saved zone, labelled with it (else
    /// UTC, labelled as such): readable without script.
    static func time(_ date: Date, _ t: Texts) -> HTML {
        let utc = format(date)
        let iso = utc.count == 20 ? String(utc.prefix(10)) + "T" + String(utc.dropFirst(11).prefix(5)) + "Z" : utc
        guard let name = t.timeZone, name != "UTC", let zone = TimeZone(identifier: name) else {
            return #"<time datetime="\#(iso)">\#(utc)</time>"#
        }
        let local = format(date.addingTimeInterval(TimeInterval(zone.secondsFromGMT(for: date))))
        return #"<time datetime="\#(iso)">\#(String(local.dropLast(3)) + name)</time>"#
    }

    /// The general form of ``format(_:)`` (the reference its tests compare the fast path with).
    static func formatSlowly(_ parts: tm) -> String {
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday)) \(two(parts.tm_hour)):\(two(parts.tm_min)) UTC"
    }

    /// A short device description from a user agent ("Chrome on Linux").
    static func describe(userAgent: String?, _ t: Texts) -> String {
        guard let agent = userAgent, !agent.isEmpty else { return t["account.unknown_device"] }
        // Byte-wise search over plain arrays: Foundation's String.contains goes through CFString, and the
        // generic `firstRange(of:)` of _StringProcessing was a tenth of the account page's CPU.
        let bytes = Array(agent.utf8)
        func has(_ needle: [UInt8]) -> Bool {
            guard needle.count <= bytes.count else { return false }
            search: for start in 0...(bytes.count - needle.count) {
                for offset in 0..<needle.count where bytes[start + offset] != needle[offset] { continue search }
                return true
            }
            return false
        }
        let browser = Self.browsers.first { has($0.0) }?.1 ?? t["account.browser"]
        let system = Self.systems.first { has($0.0) }?.1
        let native = Self.appMarkers.contains(where: has) ? " " + t["account.app_marker"] : ""
        return system.map { t("account.browser_on_system", ["browser": browser, "system": $0]) + native } ?? browser + native
    }

    // Ordered: Chrome's agent also names Safari, Edge's names Chrome, Android's names Linux.
    private static let browsers: [([UInt8], String)] = [("Edg/", "Edge"), ("Firefox/", "Firefox"), ("Chrome/", "Chrome"),
        ("Safari/", "Safari"), ("curl/", "curl"), ("python-requests", "Python")].map { (Array($0.0.utf8), $0.1) }
    private static let systems: [([UInt8], String)] = [("iPhone", "iPhone"), ("iPad", "iPad"), ("Android", "Android"),
        ("Mac OS X", "macOS"), ("Windows", "Windows"), ("Linux", "Linux")].map { (Array($0.0.utf8), $0.1) }
    private static let appMarkers: [[UInt8]] = ["Hotwire Native", "Turbo Native"].map { Array($0.utf8) }
}
