import GatehouseCrypto
import GatehouseIdentity
import GatehouseStore

/// WebAuthn options as JSON for the page script (WebAuthn §5.4, §5.5, binary members base64url).
enum PasskeyJSON {
    static func descriptor(_ credential: WebAuthnCredential) -> JSONValue {
        .object(["type": .string("public-key"), "id": .string(Base64URL.encode(credential.credentialID)),
                 "transports": .array(credential.transports.map(JSONValue.string))])
    }

    static func request(_ options: AuthenticationOptions) -> JSONValue {
        .object(["publicKey": .object([
            "challenge": .string(Base64URL.encode(options.challenge)), "rpId": .string(options.relyingPartyID),
            "timeout": .integer(Int64(options.timeout * 1000)),
            "userVerification": .string(options.requireUserVerification ? "required" : "preferred"),
            "allowCredentials": .array(options.allowCredentials.map(descriptor)),
        ])])
    }

    static func creation(_ options: RegistrationOptions) -> JSONValue {
        .object(["publicKey": .object([
            "challenge": .string(Base64URL.encode(options.challenge)),
            "rp": .object(["id": .string(options.relyingPartyID), "name": .string(options.relyingPartyName)]),
            "user": .object(["id": .string(Base64URL.encode(options.userHandle)), "name": .string(options.userName),
                             "displayName": .string(options.userDisplayName)]),
            "pubKeyCredParams": .array(options.algorithms.map { .object(["type": .string("public-key"), "alg": .integer(Int64($0.rawValue))]) }),
            "timeout": .integer(Int64(options.timeout * 1000)), "attestation": .string("none"),
            // Discoverable credentials: the sign-in page asks for none by id.
            "authenticatorSelection": .object(["residentKey": .string("required"), "requireResidentKey": .bool(true),
                                               "userVerification": .string("required")]),
            "excludeCredentials": .array(options.excludeCredentials.map(descriptor)),
        ])])
    }
}
