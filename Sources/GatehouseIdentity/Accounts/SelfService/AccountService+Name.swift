import Foundation
import GatehouseStore

extension AccountService {
    /// The longest display name accepted, in characters.
    public static let maximumNameLength = 100

    /// Sets the name the account shows (and the `name` claim carries); blank clears it. Control characters are
    /// refused rather than stored, since the name reaches mails and ID tokens. Throws `invalidName`.
    @discardableResult
    public func changeName(userId: String, to raw: String, context: ClientContext) async throws -> User {
        let name = raw.trimmingASCIIWhitespace()
        guard name.count <= Self.maximumNameLength,
              !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw AccountError.invalidName
        }
        do {
            let user = try await users.update(id: userId, [.displayName(name.isEmpty ? nil : name)], at: clock.now())
            await audit.record(.accountUpdated, userId: userId, context: context, details: ["by": "self", "changed": "name"])
            return user
        } catch let error as StoreError where error.kind == .notFound {
            throw AccountError.notFound
        }
    }
}
