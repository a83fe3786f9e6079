import Foundation
import GatehouseCrypto

/// Server nonces for DPoP proofs (RFC 9449 §8): stateless, so every process sharing the server secret
/// issues and accepts the same ones without a store round trip. A nonce is a time step and a MAC of it;
/// one is accepted during its own step and the next, so a nonce lives between one and two steps.
public struct DPoPNonces: Sendable {
    let key: [UInt8]
    let clock: IdentityClock
    /// The length of one step.
    public static let step: TimeInterval = 300

    /// `key` must be the same in every process (derive it from the server secret).
    public init(key: [UInt8], clock: IdentityClock = .system) { self.key = key; self.clock = clock }

    /// The nonce to send now in `DPoP-Nonce`.
    public func current() -> String { nonce(step: Self.stepNumber(clock.now())) }

    /// Whether `nonce` is the current step's or the previous one's.
    public func isValid(_ nonce: String) -> Bool {
        let now = Self.stepNumber(clock.now())
        return ConstantTime.equals(nonce, self.nonce(step: now)) || ConstantTime.equals(nonce, self.nonce(step: now - 1))
    }

    static func stepNumber(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 / step).rounded(.down)) }

    private func nonce(step: Int64) -> String {
        let mac = HMACSHA256.authenticationCode(for: Array("gatehouse/dpop-nonce/\(step)".utf8), key: key)
        return "\(step)." + Base64URL.encode(mac.prefix(16))
    }
}
