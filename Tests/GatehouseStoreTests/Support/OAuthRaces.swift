import Foundation
import GatehouseStore
import Testing

/// Races shared by the backend-specific concurrency tests: two database instances on the same
/// data stand in for two server processes.
enum OAuthRaces {
    /// Per round: 16 redeemers of one code and 8 rotations of one refresh token, split over the
    /// two instances. Exactly one redemption and one rotation may win each round.
    static func singleUseHoldsAcrossInstances(_ first: any GatehouseDatabase, _ second: any GatehouseDatabase,
                                              rounds: Int) async throws {
        try await createOAuthParties(first)
        for round in 0..<rounds {
            let seed = "round\(round)"
            try await first.authorizationCodes.create(.fixture("code-\(seed)"))
            try await second.refreshTokens.create(.fixture("rt-\(seed)", family: seed))
            let redemptions = try await withThrowingTaskGroup(of: CodeRedemption.self) { group in
                for caller in 0..<16 {
                    let codes = caller % 2 == 0 ? first.authorizationCodes : second.authorizationCodes
                    group.addTask { try await codes.redeem(hash: testHash("code-\(seed)"), now: TestTime.at(1)) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let rotations = try await withThrowingTaskGroup(of: RefreshRotation.self) { group in
                for caller in 0..<8 {
                    let tokens = caller % 2 == 0 ? first.refreshTokens : second.refreshTokens
                    group.addTask {
                        try await tokens.rotate(hash: testHash("rt-\(seed)"),
                                                replacement: .fixture("rt-\(seed)-\(caller)", family: seed, created: 1),
                                                now: TestTime.at(1), graceWindow: 0)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let redeemed = redemptions.filter { if case .redeemed = $0 { true } else { false } }.count
            let replayed = redemptions.filter { if case .alreadyUsed = $0 { true } else { false } }.count
            let rotated = rotations.filter { if case .rotated = $0 { true } else { false } }.count
            #expect(redeemed == 1 && replayed == 15, "round \(round): \(redeemed) redeemed, \(replayed) replays")
            #expect(rotated == 1, "round \(round): \(rotated) rotations")
        }
    }

    /// Per round: 8 exchanges of one family row's current generation, split over the two instances, no grace
    /// window: exactly one moves the generation on; every other is a replay (or finds the family revoked by one).
    static func familyRotationsHoldAcrossInstances(_ first: any GatehouseDatabase, _ second: any GatehouseDatabase,
                                                   rounds: Int) async throws {
        try await createOAuthParties(first)
        for round in 0..<rounds {
            let seed = "family\(round)"
            try await first.refreshTokens.create(.familyFixture(seed, family: seed))
            let outcomes = try await withThrowingTaskGroup(of: String.self) { group in
                for caller in 0..<8 {
                    let tokens = caller % 2 == 0 ? first.refreshTokens : second.refreshTokens
                    group.addTask {
                        let outcome = try await tokens.exchange(hash: testHash(seed), generation: 0, now: TestTime.at(1), graceWindow: 0) {
                            _, _ in (RefreshToken.familyFixture(seed, family: seed, generation: 1), caller)
                        }
                        switch outcome {
                        case .rotated: return "rotated"
                        case .reused: return "reused"
                        case .invalid: return "invalid"
                        case .refused: return "refused"
                        case .unknown: return "unknown"
                        }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 == "rotated" }.count == 1, "round \(round): \(outcomes)")
            #expect(outcomes.allSatisfy { ["rotated", "reused", "invalid"].contains($0) }, "round \(round): \(outcomes)")
            #expect(try await second.refreshTokens.find(hash: testHash(seed))?.generation == 1, "round \(round)")
        }
    }
}
