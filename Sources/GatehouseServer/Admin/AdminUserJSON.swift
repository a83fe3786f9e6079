import Foundation
import GatehouseHTTP
import GatehouseStore

/// The admin API's user resources, written by hand in the key order `.sortedKeys` gives. JSONSerialization
/// (swift-corelibs-foundation) cost nearly all of a 50-user page's CPU, several milliseconds: every value
/// goes through dynamic casts and every object's keys through a locale-aware compare.
extension AdminJSON {
    /// `{"next_cursor": …, "users": [...]}`.
    static func userPage(_ page: Page<User>) -> Response {
        var text = "{\"next_cursor\":"
        if let cursor = page.nextCursor { JSONText.appendString(cursor, to: &text) } else { text += "null" }
        text += ",\"users\":["
        for (index, user) in page.items.enumerated() {
            if index > 0 { text += "," }
            appendUser(user, to: &text)
        }
        text += "]}"
        return Response.json(bytes: Array(text.utf8))
    }

    static func userResponse(_ user: User, status: HTTPStatus = .ok) -> Response {
        var text = ""
        appendUser(user, to: &text)
        return Response.json(bytes: Array(text.utf8), status: status)
    }

    /// id, email, name (null when unset), email_verified, disabled, has_password, created_at, updated_at.
    static func appendUser(_ user: User, to text: inout String) {
        text += "{\"created_at\":\"" + time(user.createdAt) + "\",\"disabled\":" + (user.disabled ? "true" : "false")
        text += ",\"email\":"
        JSONText.appendString(user.email, to: &text)
        text += ",\"email_verified\":" + (user.emailVerified ? "true" : "false")
        text += ",\"has_password\":" + (user.passwordHash != nil ? "true" : "false") + ",\"id\":"
        JSONText.appendString(user.id, to: &text)
        text += ",\"name\":"
        if let name = user.displayName { JSONText.appendString(name, to: &text) } else { text += "null" }
        text += ",\"updated_at\":\"" + time(user.updatedAt) + "\"}"
    }
}
