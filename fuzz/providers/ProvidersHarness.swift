import Foundation
import FuzzSupport
import GatehouseCrypto
@testable import GatehouseProviders

/// What upstream providers send back: Apple's first-authorization `user` JSON, and whole OIDC and
/// GitHub sign-ins whose token, userinfo and API responses come from the fuzz input (the id_token is
/// signed by the harness over fuzzed claims, so the checks after the signature are reached).
///
/// Properties: a name from Apple's `user` is absent or 1–200 characters; an OIDC sign-in succeeds only
/// with the harness's id_token, the configured issuer and audience, the flow's nonce, an unexpired
/// token and a userinfo `sub` equal to the token's; a GitHub sign-in succeeds only with a positive
/// integer id (never a fraction or a float out of range) and a primary, verified email. No response makes
/// the process crash.
func fuzzProviders(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var reader = ByteReader(bytes(data, size))
    switch reader.choice(3) {
    case 0: checkAppleUserJSON(String(decoding: reader.rest(), as: UTF8.self))
    case 1: checkOIDC(&reader)
    default: checkGitHub(&reader)
    }
    return 0
}

private let now = Date(timeIntervalSince1970: 1_800_000_000)
private let base = URL(string: "https://provider.example")!
private let signingKey = try! SigningKey.generate(.es256)
private let jwks = Array(JWKSet(keys: [signingKey.publicJWK]).jsonData())

/// Builds the lazy globals before the first input.
func prepareProviders() { _ = jwks.count }

private func checkAppleUserJSON(_ json: String) {
    guard let name = AppleProvider.name(fromUserJSON: json) else { return }
    require(!name.isEmpty && name.count <= 200, "Apple user name of \(name.count) characters")
}

/// Status byte → an HTTP status providers really send.
private func status(_ byte: UInt8) -> Int { [200, 200, 200, 200, 400, 401, 500, 302][Int(byte) % 8] }

private func checkOIDC(_ reader: inout ByteReader) {
    let tokenStatus = status(reader.byte()), userinfoStatus = status(reader.byte())
    let claimsTemplate = Array(reader.part(until: 0))
    let tokenTemplate = Array(reader.part(until: 0))
    let userinfo = Array(reader.rest())
    let flow = ProviderFlow(provider: "idp", redirectURI: "https://gatehouse.example/auth/idp/callback")

    // `"NONCE"` in the claims stands for the flow's (random) nonce, `"ID_TOKEN"` in the token
    // response for the id_token signed over those claims.
    let claims = replacing(claimsTemplate, #""NONCE""#, with: JSONValue.string(flow.nonce).jsonBytes)
    guard let idToken = try? CompactJWS.sign(payload: claims, with: signingKey) else { return require(false, "signing failed") }
    let tokenBody = replacing(tokenTemplate, #""ID_TOKEN""#, with: JSONValue.string(idToken).jsonBytes)

    let settings = OIDCSettings(id: "idp", displayName: "IdP", issuer: "https://provider.example", clientID: "gatehouse",
                                clientSecret: "secret", authorizationEndpoint: base.appendingPathComponent("authorize"),
                                tokenEndpoint: base.appendingPathComponent("token"), jwksURI: base.appendingPathComponent("jwks"),
                                userinfoEndpoint: base.appendingPathComponent("userinfo"))
    let transport = ScriptedTransport(answers: [
        "/token": ProviderHTTPResponse(status: tokenStatus, body: tokenBody),
        "/jwks": ProviderHTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: jwks),
        "/userinfo": ProviderHTTPResponse(status: userinfoStatus, body: userinfo),
    ])
    let provider = OIDCProvider(settings: settings, transport: transport, clock: { now })
    guard case .success(let profile) = blocking({ try await provider.completeSignIn(callback: ["code": "c"], flow: flow) }) else {
        return
    }
    let tokens = JSONValue(parsing: tokenBody)
    guard case .object(let tokenMembers)? = tokens, tokenMembers["id_token"] == .string(idToken) else {
        return require(false, "signed in without the harness's id_token")
    }
    guard case .object(let verified)? = JSONValue(parsing: claims) else { return require(false, "signed in with claims that are not JSON") }
    require(verified["iss"] == .string("https://provider.example"), "accepted iss \(String(describing: verified["iss"]))")
    let audience: [JSONValue] = if case .array(let values)? = verified["aud"] { values } else { [verified["aud"] ?? .null] }
    require(audience.contains(.string("gatehouse")), "accepted aud \(String(describing: verified["aud"]))")
    require(verified["nonce"] == .string(flow.nonce), "accepted a token without the flow's nonce")
    require((verified["exp"]?.numberValue ?? 0) + 60 > now.timeIntervalSince1970, "accepted an expired token")
    require(profile.subject == verified["sub"]?.stringValue && !profile.subject.isEmpty && profile.subject.utf8.count <= 255,
            "profile subject \(profile.subject) is not the token's sub")
    require(profile.email == profile.email?.lowercased(), "email not lower-cased")
    if verified["email"] == nil, case .object(let info)? = JSONValue(parsing: userinfo), tokenMembers["access_token"]?.stringValue != nil {
        require(info["sub"] == verified["sub"], "merged userinfo about another subject")
    }
    for (name, value) in verified { require(profile.rawClaims[name] == value, "userinfo overrode the verified claim \(name)") }
}

private func checkGitHub(_ reader: inout ByteReader) {
    let userStatus = status(reader.byte()), emailsStatus = status(reader.byte())
    let tokenBody = Array(reader.part(until: 0))
    let user = Array(reader.part(until: 0))
    let emails = Array(reader.rest())
    let flow = ProviderFlow(provider: "github", redirectURI: "https://gatehouse.example/auth/github/callback")
    let settings = GitHubSettings(clientID: "gh", clientSecret: "secret", authorizationEndpoint: base.appendingPathComponent("authorize"),
                                  tokenEndpoint: base.appendingPathComponent("token"), apiBaseURL: base.appendingPathComponent("api"))
    let transport = ScriptedTransport(answers: [
        "/token": ProviderHTTPResponse(status: 200, body: tokenBody),
        "/api/user": ProviderHTTPResponse(status: userStatus, body: user),
        "/api/user/emails": ProviderHTTPResponse(status: emailsStatus, body: emails),
    ])
    let provider = GitHubProvider(settings: settings, transport: transport)
    guard case .success(let profile) = blocking({ try await provider.completeSignIn(callback: ["code": "c"], flow: flow) }) else {
        return
    }
    guard case .object(let account)? = JSONValue(parsing: user), case .integer(let id)? = account["id"] else {
        return require(false, "signed in without an integer /user id")
    }
    require(id > 0 && profile.subject == String(id), "subject \(profile.subject) from id \(id)")
    guard case .array(let entries)? = JSONValue(parsing: emails) else { return require(false, "signed in without an email list") }
    let trusted = entries.contains { entry in
        guard case .object(let members) = entry, let email = members["email"]?.stringValue else { return false }
        return members["primary"] == .bool(true) && members["verified"] == .bool(true) && email.lowercased() == profile.email
    }
    require(trusted && profile.emailVerified, "signed in with \(profile.email ?? "no email"), not a primary verified address")
}

/// `bytes` with every occurrence of `pattern` replaced.
private func replacing(_ bytes: [UInt8], _ pattern: String, with replacement: [UInt8]) -> [UInt8] {
    let needle = Array(pattern.utf8)
    var out: [UInt8] = []
    var index = 0
    while index < bytes.count {
        if bytes[index...].starts(with: needle) {
            out += replacement
            index += needle.count
        } else {
            out.append(bytes[index])
            index += 1
        }
    }
    return out
}
