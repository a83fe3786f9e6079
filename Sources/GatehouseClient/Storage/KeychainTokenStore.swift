#if canImport(Security)
import Foundation
import Security

/// Tokens in the keychain as one generic-password item holding the JSON token set, readable
/// after first unlock and never synced to iCloud or restored to another device.
/// Not compiled on Linux.
public struct KeychainTokenStore: TokenStore {
    public let service: String
    public let account: String
    /// Shared keychain access group (app + extensions), if any.
    public let accessGroup: String?

    public init(service: String, account: String = "tokens", accessGroup: String? = nil) {
        self.service = service
        self.account = account
        self.accessGroup = accessGroup
    }

    private var query: [String: Any] {
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: account,
        ]
        if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
        return query
    }

    public func load() throws -> TokenSet? {
        var lookup = query
        lookup[kSecReturnData as String] = true
        lookup[kSecMatchLimit as String] = kSecMatchLimitOne
        var result: AnyObject?
        let status = SecItemCopyMatching(lookup as CFDictionary, &result)
        if status == errSecItemNotFound { return nil }
        guard status == errSecSuccess, let data = result as? Data else { throw KeychainTokenStoreError.status(status) }
        return try JSONDecoder.tokens.decode(TokenSet.self, from: data)
    }

    public func save(_ tokens: TokenSet) throws {
        let data = try JSONEncoder.tokens.encode(tokens)
        let attributes: [String: Any] = [
            kSecValueData as String: data,
            kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly,
        ]
        var status = SecItemUpdate(query as CFDictionary, attributes as CFDictionary)
        if status == errSecItemNotFound {
            status = SecItemAdd(query.merging(attributes) { $1 } as CFDictionary, nil)
        }
        guard status == errSecSuccess else { throw KeychainTokenStoreError.status(status) }
    }

    public func clear() throws {
        let status = SecItemDelete(query as CFDictionary)
        guard status == errSecSuccess || status == errSecItemNotFound else { throw KeychainTokenStoreError.status(status) }
    }
}

/// A keychain call returned this `OSStatus`.
public enum KeychainTokenStoreError: Error, Equatable, Sendable {
    case status(OSStatus)
}
#endif
