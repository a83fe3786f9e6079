import Foundation
import GatehouseStore

extension User {
    /// A verified password user created at `TestTime.at(created)`.
    static func fixture(_ id: String, email: String? = nil, created: Double = 0) -> User {
        User(id: id, email: email ?? "\(id)@example.test", displayName: "User \(id)",
             passwordHash: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA", emailVerified: true,
             createdAt: TestTime.at(created))
    }
}

extension Session {
    /// A session of `userId` created at `TestTime.at(created)`, idle for 30 min, absolute 1 day.
    static func fixture(_ seed: String, userId: String, created: Double = 0) -> Session {
        Session(idHash: testHash(seed), userId: userId, createdAt: TestTime.at(created),
                idleExpiresAt: TestTime.at(created + 1800), absoluteExpiresAt: TestTime.at(created + 86_400),
                ip: "192.0.2.1", userAgent: "Test/1.0 Hotwire Native iOS", authMethods: ["pwd", "otp"])
    }
}
