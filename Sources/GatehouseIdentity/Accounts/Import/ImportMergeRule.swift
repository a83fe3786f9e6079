import GatehouseStore

/// Whether, and how, an import row may be written onto the account it matched.
///
/// An account created in Gatehouse (a sign-up, a provider sign-in, an operator's `user create`) belongs to
/// whoever made it there, who may not be the person the old system knew under that address; one proven in
/// Gatehouse belongs to the address's owner. So:
///
/// - accounts that came from an import are updated by later imports, as before — but the verified flag is
///   never lowered, and a password hash is never replaced once Gatehouse has proven the address;
/// - any other account is refused (the row is reported by line) unless the operator asked to merge
///   (`--merge-existing`); then
///   - a proven account keeps its password and its verified flag, and gets the row's product user id and identities;
///   - an unproven one is *claimed* as a proof of the address would claim it (``EmailOwnershipClaim``): its
///     identities, sessions, refresh tokens and consents go, and the creator's password is replaced by the
///     row's hash or, without one, cleared.
public struct ImportMergeRule: Sendable, Equatable {
    /// The operator passed `--merge-existing`.
    public var mergeExisting: Bool

    public init(mergeExisting: Bool = false) { self.mergeExisting = mergeExisting }

    public func decide(_ row: ImportedUser, onto account: ImportMatch) -> ImportMerge {
        let proven = account.emailVerified && !account.verifiedByImport && account.email == row.email
        if !account.imported {
            guard mergeExisting else {
                return .refuse(reason: "account \(row.email) was created in Gatehouse, not by an import; it is left alone "
                               + "(pass --merge-existing to merge the row into it)")
            }
            if proven {
                return .update(ImportUpdate(emailVerified: true, verifiedByImport: false, password: .keep))
            }
            return .update(ImportUpdate(emailVerified: row.emailVerified, verifiedByImport: row.emailVerified,
                                        password: row.passwordHash.map { .set($0) } ?? .clear, dropIdentities: true))
        }
        if proven {
            return .update(ImportUpdate(emailVerified: true, verifiedByImport: false, password: .keep))
        }
        // An address the row changes was never proven here, whatever the old one was.
        let verified = account.email == row.email ? (account.emailVerified || row.emailVerified) : row.emailVerified
        return .update(ImportUpdate(emailVerified: verified, verifiedByImport: verified,
                                    password: row.passwordHash.map { .set($0) } ?? .keep))
    }
}
