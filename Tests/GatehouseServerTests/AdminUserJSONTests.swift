import Foundation
@testable import GatehouseServer
import GatehouseHTTP
import GatehouseStore
import Testing

/// The admin API's hand-written user JSON against what JSONSerialization made of the same fields.
@Suite("Admin API user JSON")
struct AdminUserJSONTests {
    static let users = [
        User(id: "u1", email: "plain@example.test", displayName: nil, passwordHash: nil, emailVerified: false,
             createdAt: Date(timeIntervalSince1970: 1_767_225_600.123)),
        User(id: "u\"2\\", email: "o'neil/\"q\"\\x@example.test", displayName: "Zoë \u{1}\n\t\u{1f}😀 </script>",
             passwordHash: "$argon2id$…", emailVerified: true, disabled: true,
             createdAt: Date(timeIntervalSince1970: 0), updatedAt: Date(timeIntervalSince1970: 253_402_300_799.999)),
    ]

    static func parsed(_ response: Response) throws -> NSDictionary {
        try parsed(response.body)
    }

    static func parsed(_ bytes: some Sequence<UInt8>) throws -> NSDictionary {
        try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? NSDictionary)
    }

    /// The object the routes sent before, through JSONSerialization and back.
    static func expected(_ user: User) throws -> NSDictionary {
        let fields: [String: Any] = ["id": user.id, "email": user.email, "name": user.displayName.map { $0 as Any } ?? NSNull(),
         "email_verified": user.emailVerified, "disabled": user.disabled, "has_password": user.passwordHash != nil,
         "created_at": AdminJSON.time(user.createdAt), "updated_at": AdminJSON.time(user.updatedAt)]
        return try parsed(try JSONSerialization.data(withJSONObject: fields))
    }

    @Test func aPageHasEveryFieldOfEveryUserAndTheCursor() throws {
        let page = try Self.parsed(AdminJSON.userPage(Page(items: Self.users, nextCursor: "1767225600123.u\"2")))
        #expect(page["next_cursor"] as? String == "1767225600123.u\"2")
        let users = try #require(page["users"] as? [NSDictionary])
        #expect(users == (try Self.users.map(Self.expected)))
        let last = try Self.parsed(AdminJSON.userPage(Page(items: [], nextCursor: nil)))
        #expect(last["next_cursor"] is NSNull && (last["users"] as? [Any])?.isEmpty == true)
    }

    @Test func oneUserIsTheSameObjectInSortedKeyOrder() throws {
        let response = AdminJSON.userResponse(Self.users[0], status: .created)
        #expect(response.status == .created)
        #expect(try Self.parsed(response) == (try Self.expected(Self.users[0])))
        #expect(String(decoding: response.body, as: UTF8.self) == """
            {"created_at":"2026-01-01T00:00:00.123Z","disabled":false,"email":"plain@example.test","email_verified":false,\
            "has_password":false,"id":"u1","name":null,"updated_at":"2026-01-01T00:00:00.123Z"}
            """)
    }
}
