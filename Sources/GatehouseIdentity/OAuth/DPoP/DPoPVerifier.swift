import Foundation
import GatehouseCrypto
import GatehouseStore

/// Checks a DPoP proof against the request it came with (RFC 9449 §4.3): the JWS itself
/// (``DPoPProof``), then `htm`, `htu`, the `iat` window, `ath` for a resource request, the server
/// nonce when required, and finally the `jti`, which is recorded in the shared store so the same
/// proof is refused by every process (the insert is the atomic step: of concurrent uses one wins).
public struct DPoPVerifier: Sendable {
    let replays: any FlowStateStore
    public let nonces: DPoPNonces
    let clock: IdentityClock
    /// Whether every proof must carry a nonce from ``nonces``.
    public let nonceRequired: Bool

    /// What `dpop_signing_alg_values_supported` advertises, and all a proof may be signed with.
    public static let algorithms: [JWSAlgorithm] = [.es256, .edDSA, .ps256, .rs256]
    /// How old a proof may be: long enough for a slow mobile network, short enough that its `jti`
    /// is remembered only briefly.
    public static let maximumAge: TimeInterval = 60
    /// How far in the future a proof's `iat` may lie (the device's clock running ahead).
    public static let allowedClockAhead: TimeInterval = 10

    public init(replays: any FlowStateStore, nonces: DPoPNonces, nonceRequired: Bool, clock: IdentityClock = .system) {
        self.replays = replays; self.nonces = nonces; self.nonceRequired = nonceRequired; self.clock = clock
    }

    /// Verifies `proof`, the one `DPoP` header of a `method` request to `uri` (the endpoint's public
    /// URL), carrying `accessToken` when it is a resource request. Throws `invalid_dpop_proof`, or
    /// `use_dpop_nonce` when a nonce is required and the proof has no current one.
    public func verify(_ proof: String, method: String, uri: String, accessToken: String? = nil) async throws -> DPoPProof {
        let parsed: DPoPProof
        do {
            parsed = try DPoPProof(proof, allowedAlgorithms: Set(Self.algorithms))
        } catch {
            throw OAuthError(.invalidDPoPProof, "The DPoP proof is not valid (\(Self.reason(error))).")
        }
        guard parsed.method == method else { throw OAuthError(.invalidDPoPProof, "The DPoP proof's htm is not \(method).") }
        guard let expected = DPoPProof.normalizedURI(uri), DPoPProof.normalizedURI(parsed.uri) == expected else {
            throw OAuthError(.invalidDPoPProof, "The DPoP proof's htu is not \(uri).")
        }
        let now = clock.now()
        guard parsed.issuedAt <= now.addingTimeInterval(Self.allowedClockAhead),
              parsed.issuedAt >= now.addingTimeInterval(-Self.maximumAge) else {
            throw OAuthError(.invalidDPoPProof, "The DPoP proof's iat is outside the accepted window.")
        }
        if let accessToken {
            guard let ath = parsed.accessTokenHash else { throw OAuthError(.invalidDPoPProof, "The DPoP proof has no ath.") }
            guard ConstantTime.equals(ath, DPoPProof.accessTokenHash(accessToken)) else {
                throw OAuthError(.invalidDPoPProof, "The DPoP proof's ath does not match the access token.")
            }
        }
        if nonceRequired {
            guard let nonce = parsed.nonce, nonces.isValid(nonce) else {
                throw OAuthError(.useDPoPNonce, "Authorization server requires nonce in DPoP proof.")
            }
        }
        guard try await firstUse(parsed, now: now) else {
            throw OAuthError(.invalidDPoPProof, "The DPoP proof was already used.")
        }
        return parsed
    }

    /// Records the proof's `jti` (per key, as RFC 9449 §11.1 scopes it) until the proof could no longer
    /// pass the `iat` check anyway; false when it was recorded before.
    private func firstUse(_ proof: DPoPProof, now: Date) async throws -> Bool {
        let hash = TokenHash(SHA256.hash("gatehouse/dpop-jti/\(proof.thumbprint)/\(proof.jti)"))
        let until = max(proof.issuedAt, now).addingTimeInterval(Self.maximumAge + Self.allowedClockAhead)
        do {
            try await replays.create(FlowState(stateHash: hash, createdAt: now, expiresAt: until, payload: #"{"kind":"dpop_jti"}"#))
            return true
        } catch let error as StoreError where error.kind == .conflict {
            return false
        }
    }

    private static func reason(_ error: JOSEError) -> String {
        switch error {
        case .invalidClaim("typ"): "typ must be dpop+jwt"
        case .algorithmNotAllowed, .unsupportedAlgorithm: "alg must be one of " + algorithms.map(\.rawValue).joined(separator: ", ")
        case .invalidKey(let detail): detail
        case .missingClaim(let name): "\(name) is missing"
        case .invalidClaim(let name): "\(name) is malformed"
        case .invalidSignature: "the signature does not verify"
        case .tokenTooLarge: "it is too large"
        default: "it is not a signed JWT with a public jwk"
        }
    }
}
