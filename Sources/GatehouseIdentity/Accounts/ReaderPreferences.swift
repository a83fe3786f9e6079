import Foundation
import GatehouseStore

/// A language or time zone the account page cannot save.
public enum ReaderPreferenceError: Error, Sendable, Equatable {
    case unknownLanguage
    case unknownTimeZone
}

extension AccountService {
    /// Saves the language and time zone the user reads pages and mails in. `languages`: the tags the
    /// server ships (the catalogues are the server's); the zone must be an IANA name the system knows.
    /// Nil clears a choice (pages then follow the browser, times are in UTC).
    public func savePreferences(userId: String, language: String?, timeZone: String?,
                                languages: Set<String>) async throws -> User {
        if let language, !languages.contains(language) { throw ReaderPreferenceError.unknownLanguage }
        if let timeZone, !Self.isTimeZone(timeZone) { throw ReaderPreferenceError.unknownTimeZone }
        return try await users.update(id: userId, [.language(language), .timeZone(timeZone)], at: clock.now())
    }

    /// An IANA zone name (`Europe/Berlin`, `UTC`), never an offset or an abbreviation Foundation would also take.
    static func isTimeZone(_ name: String) -> Bool {
        name.utf8.count <= 64 && (name == "UTC" || TimeZone.knownTimeZoneIdentifiers.contains(name))
    }
}
