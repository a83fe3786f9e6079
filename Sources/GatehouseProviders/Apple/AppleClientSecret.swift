import Foundation
import GatehouseCrypto

/// Mints Apple's client secret: an ES256 JWT signed with the `.p8` key, `kid` = key id, `iss` = team id,
/// `sub` = client id, `aud` = `https://appleid.apple.com`. Minted per request so it never expires in use.
struct AppleClientSecret: Sendable {
    let key: SigningKey
    let settings: AppleSettings

    init(settings: AppleSettings) throws {
        let key: SigningKey
        do { key = try SigningKey(pem: settings.privateKeyPEM) } catch {
            throw ProviderError.misconfigured("the Apple private key is not a PKCS#8 PEM (.p8) key")
        }
        guard key.algorithm == .es256 else { throw ProviderError.misconfigured("the Apple private key must be a P-256 (.p8) key") }
        self.key = key
        self.settings = settings
    }

    func mint(now: Date) throws -> String {
        let iat = Int64(now.timeIntervalSince1970.rounded(.down))
        let claims: [String: JSONValue] = [
            "iss": .string(settings.teamID), "sub": .string(settings.clientID), "aud": .string(AppleSettings.issuer),
            "iat": .integer(iat), "exp": .integer(iat + Int64(max(60, min(settings.clientSecretLifetime, 15_777_000)))),
        ]
        do { return try JWTSigner.sign(claims, with: key, keyID: settings.keyID) } catch {
            throw ProviderError.misconfigured("cannot sign the Apple client secret")
        }
    }
}
