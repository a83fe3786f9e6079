import Foundation
import GatehouseCrypto

/// `gatehouse keys list|rotate`.
enum KeysCommand: CLICommand {
    static let name = "keys"
    static let takesAction = true
    static let summary = "List or rotate the token-signing keys"
    static let options = ["--config": true]
    static let help = """
        Usage: gatehouse keys list
               gatehouse keys rotate

        list    every signing key: id, algorithm, state (signing, upcoming, retired), when it signs from and
                until when it stays published in the JWKS
        rotate  adds a new key per algorithm: ES256 (access tokens, and ID tokens of clients that ask for it)
                and RS256 (ID tokens by default). Each is published in /oauth/jwks at once and starts signing after the
                publish lead (10 minutes), so relying parties cache it first; the current key then stops
                signing and stays published for 2 days, longer than any token it signed lives.
                Every running Gatehouse process picks the change up within 30 seconds.
        """

    static func run(options: inout CommandOptions, environment: [String: String]) async throws -> Int32 {
        let context = try await OperatorContext.open(options: options, environment: environment)
        defer { Task { await context.database.close() } }
        let ring = context.services.keys
        switch options.positional.first {
        case "list":
            let now = Date()
            let formatter = ISO8601DateFormatter()
            print("kid\talg\tstate\tsigns_from\tpublished_until")
            for key in try await ring.keySet(forceReload: true).keys.sorted(by: { $0.createdAt < $1.createdAt }) {
                let state = key.isActive(at: now) ? "signing" : key.activatesAt > now ? "upcoming" : "retired"
                print("\(key.keyID)\t\(key.key.algorithm.rawValue)\t\(state)\t\(formatter.string(from: key.activatesAt))\t\(key.publishUntil.map(formatter.string(from:)) ?? "-")")
            }
        case "rotate":
            try await ring.ensureSigningKey()
            let result = try await ring.rotate()
            print("new keys \(result.new.joined(separator: ", ")) sign in \(Int(ring.policy.publishLead)) s; retiring \(result.retired.joined(separator: ", "))")
        default:
            throw UsageError(message: "keys needs an action: list or rotate")
        }
        return ExitCode.success
    }
}
