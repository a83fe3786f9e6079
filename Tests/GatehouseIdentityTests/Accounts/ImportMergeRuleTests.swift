import GatehouseIdentity
import GatehouseStore
import Testing

/// The import's ownership rules, case by case, without a database.
@Suite struct ImportMergeRuleTests {
    static func row(verified: Bool = true, hash: String? = "$2a$04$row", email: String = "a@example.com") -> ImportedUser {
        ImportedUser(line: 3, email: email, emailVerified: verified, passwordHash: hash, newId: "n")
    }

    static func account(imported: Bool, verified: Bool, byImport: Bool = false, email: String = "a@example.com") -> ImportMatch {
        ImportMatch(userId: "u", email: email, emailVerified: verified, hasPassword: true, imported: imported, verifiedByImport: byImport)
    }

    @Test func anAccountCreatedInGatehouseIsRefusedUnlessTheOperatorAsks() {
        for verified in [false, true] {
            guard case .refuse(let reason) = ImportMergeRule().decide(Self.row(), onto: Self.account(imported: false, verified: verified)) else {
                Issue.record("merged without being asked"); continue
            }
            #expect(reason.contains("a@example.com") && reason.contains("--merge-existing"))
        }
    }

    @Test func mergingIntoAnUnprovenAccountClaimsIt() {
        let rule = ImportMergeRule(mergeExisting: true)
        #expect(rule.decide(Self.row(hash: nil), onto: Self.account(imported: false, verified: false))
                == .update(ImportUpdate(emailVerified: true, verifiedByImport: true, password: .clear, dropIdentities: true)))
        #expect(rule.decide(Self.row(verified: false), onto: Self.account(imported: false, verified: false))
                == .update(ImportUpdate(emailVerified: false, verifiedByImport: false, password: .set("$2a$04$row"), dropIdentities: true)))
    }

    @Test func aProvenAccountKeepsItsPasswordAndItsVerifiedFlag() {
        let expected = ImportMerge.update(ImportUpdate(emailVerified: true, verifiedByImport: false, password: .keep))
        #expect(ImportMergeRule(mergeExisting: true).decide(Self.row(verified: false), onto: Self.account(imported: false, verified: true)) == expected)
        // An imported account proven here since (verify link, reset): the same, without the flag.
        #expect(ImportMergeRule().decide(Self.row(verified: false), onto: Self.account(imported: true, verified: true)) == expected)
    }

    @Test func anImportedAccountFollowsTheFileButIsNeverLowered() {
        let rule = ImportMergeRule()
        #expect(rule.decide(Self.row(verified: false), onto: Self.account(imported: true, verified: true, byImport: true))
                == .update(ImportUpdate(emailVerified: true, verifiedByImport: true, password: .set("$2a$04$row"))))
        #expect(rule.decide(Self.row(hash: nil), onto: Self.account(imported: true, verified: false))
                == .update(ImportUpdate(emailVerified: true, verifiedByImport: true, password: .keep)))
        // A new address in the row was never proven, whatever the old one was.
        #expect(rule.decide(Self.row(verified: false, email: "new@example.com"), onto: Self.account(imported: true, verified: true))
                == .update(ImportUpdate(emailVerified: false, verifiedByImport: false, password: .set("$2a$04$row"))))
    }
}
