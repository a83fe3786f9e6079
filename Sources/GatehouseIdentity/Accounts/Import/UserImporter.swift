import Foundation
import GatehouseCrypto
import GatehouseStore

/// Brings accounts over from another system (Devise, has_secure_password, an Argon2 user table):
/// the service behind `gatehouse user import`.
///
/// Every record is validated first; any invalid record stops the import before anything is
/// written, with every problem reported by line. Valid records are then written in batches, each
/// one transaction (a row the database refuses rolls its batch back). Re-running the same file
/// updates the same accounts: rows match by product user id, then by email. A row that matches an account
/// created in Gatehouse is a conflict unless the operator asks to merge (``ImportMergeRule``).
public struct UserImporter: Sendable {
    /// Omniauth strategy names → Gatehouse provider names.
    public static let providerAliases = ["google_oauth2": "google", "openid_connect": "oidc"]
    /// The field names a record may carry (others are errors, so a typo is not silently dropped).
    public static let knownFields: Set<String> = [
        "email", "name", "verified", "confirmed_at", "created_at", "password_hash", "encrypted_password", "external_id",
        "identities", "provider", "uid", "identity_email",
    ]

    public struct Report: Sendable, Equatable {
        public var created = 0
        public var updated = 0
        /// Unproven Gatehouse accounts a merge claimed (sessions ended, password replaced or cleared).
        public var claimed = 0
        public var errors: [ImportRowError] = []
        public var dryRun = false
        /// Loaded whole in one transaction into a database that had no accounts (``UserImportStore/loadIntoEmpty(_:at:)``).
        public var loadedWhole = false
    }

    let imports: any UserImportStore
    let audit: AuditTrail
    let clock: IdentityClock
    let subjectSource: SubjectSource
    let batchSize: Int
    /// What a merge into an unproven account removes; nil only in tests of the importer alone.
    let ownershipClaim: EmailOwnershipClaim?

    public init(imports: any UserImportStore, audit: AuditTrail, clock: IdentityClock, subjectSource: SubjectSource = .gatehouse,
                batchSize: Int = UserImporter.defaultBatchSize, ownershipClaim: EmailOwnershipClaim? = nil) {
        self.imports = imports; self.audit = audit; self.clock = clock; self.subjectSource = subjectSource
        self.batchSize = max(1, batchSize); self.ownershipClaim = ownershipClaim
    }

    /// Rows per write transaction unless the caller says otherwise (`gatehouse user import --batch-size`).
    ///
    /// Most of an import's cost is B-tree pages: each row goes into about seven indexes with random keys (the
    /// account id, email, external id, the identity's key and the user-id indexes), and every page a batch
    /// changes is written once per commit, however many of its rows landed on it. Batches of 500 on 100,000
    /// accounts wrote 4.1 GB through the WAL for an 83 MB database; 5,000 wrote 0.8 GB, twice as fast.
    /// A batch holds SQLite's writer for its whole length, so an import beside live traffic wants smaller ones.
    public static let defaultBatchSize = 5_000
    /// The largest `--batch-size`: one transaction's changed pages and statement journals stay in memory.
    public static let batchSizes = 1...50_000

    /// Imports `text` (JSON lines or CSV); with `dryRun` it validates and reports without writing.
    /// With `mergeExisting` rows may be merged into accounts created in Gatehouse (``ImportMergeRule``).
    /// `batchSize` (rows per transaction) overrides the importer's.
    /// A file of more than one batch into a database with no accounts, without a batch size of the run's own, is
    /// loaded whole in one transaction (``UserImportStore/loadIntoEmpty(_:at:)``).
    public func run(_ text: String, format: ImportFileReader.Format? = nil, dryRun: Bool,
                    mergeExisting: Bool = false, batchSize: Int? = nil) async throws -> Report {
        let mayLoadWhole = batchSize == nil && !dryRun
        let batchSize = max(1, batchSize ?? self.batchSize)
        let rule = ImportMergeRule(mergeExisting: mergeExisting)
        var report = Report(dryRun: dryRun)
        let rows: [ImportedUser]
        (rows, report.errors) = await readAndValidate(text, format: format ?? ImportFileReader.detect(text))
        report.errors.sort { $0.line < $1.line }
        guard report.errors.isEmpty else { return report }
        if mayLoadWhole, rows.count > batchSize, let outcomes = try await imports.loadIntoEmpty(rows, at: clock.now()) {
            // Audited in the order the store wrote the accounts (its ids' order), not the file's.
            for start in stride(from: 0, to: outcomes.count, by: batchSize) {
                await audit(outcomes[start..<min(start + batchSize, outcomes.count)])
            }
            report.created = outcomes.count
            report.loadedWhole = true
            try await imports.importFinished()
            return report
        }
        // Every row judged before anything is written, so a conflict anywhere writes nothing (as a bad row does).
        var planned = (created: 0, updated: 0)
        for start in stride(from: 0, to: rows.count, by: Self.readChunk) {
            let chunk = Array(rows[start..<min(start + Self.readChunk, rows.count)])
            for (row, found) in zip(chunk, try await imports.matches(chunk)) {
                switch found {
                case .success(nil): planned.created += 1
                case .success(let match?):
                    if case .refuse(let reason) = rule.decide(row, onto: match) {
                        report.errors.append(ImportRowError(line: row.line, message: reason))
                    } else {
                        planned.updated += 1
                    }
                case .failure(let conflict): report.errors.append(ImportRowError(line: conflict.line, message: conflict.reason))
                }
            }
        }
        guard report.errors.isEmpty else { return report }
        if dryRun {
            report.created = planned.created; report.updated = planned.updated
            return report
        }
        var start = 0
        while start < rows.count {
            let batch = Array(rows[start..<min(start + batchSize, rows.count)])
            do {
                // The rule is applied again inside the transaction: an account created since the check is still refused.
                let outcomes = try await imports.importBatch(batch, at: clock.now()) { rule.decide($0, onto: $1) }
                await audit(outcomes[...])
                for outcome in outcomes {
                    if outcome.action == .created { report.created += 1 } else { report.updated += 1 }
                    if outcome.claimed {
                        try await ownershipClaim?.claimedByImport(userId: outcome.userId)
                        report.claimed += 1
                    }
                }
            } catch let conflict as ImportRowConflict {
                report.errors.append(ImportRowError(line: conflict.line, message: conflict.reason + " (its batch was not written)"))
                return report
            }
            start += batchSize
        }
        try await imports.importFinished()
        return report
    }

    /// Bytes of JSON lines below which the file is read on one core (a piece per core costs a task each).
    public static let piecewiseReadBytes = 1 << 20

    /// The file's valid rows in file order, and every record's problem. JSON lines are read and validated in a
    /// piece per core at once: a million rows took 11 s on one.
    func readAndValidate(_ text: String, format: ImportFileReader.Format) async -> ([ImportedUser], [ImportRowError]) {
        @Sendable func validated(_ read: (records: [ImportRecord], errors: [ImportRowError])) -> ([ImportedUser], [ImportRowError]) {
            var rows: [ImportedUser] = [], errors = read.errors
            rows.reserveCapacity(read.records.count)
            for record in read.records {
                do { rows.append(try validate(record)) } catch { errors.append(error) }
            }
            return (rows, errors)
        }
        let cores = ProcessInfo.processInfo.activeProcessorCount
        guard format == .jsonLines, cores > 1, text.utf8.count >= Self.piecewiseReadBytes else {
            return validated(ImportFileReader.read(text, format: format))
        }
        let pieces = ImportFileReader.jsonLinePieces(text, parts: cores)
        let results = await withTaskGroup(of: (Int, [ImportedUser], [ImportRowError]).self) { group in
            for (position, piece) in pieces.enumerated() {
                group.addTask {
                    let (rows, errors) = validated(ImportFileReader.read(jsonLines: piece.text, firstLine: piece.firstLine))
                    return (position, rows, errors)
                }
            }
            var results: [(Int, [ImportedUser], [ImportRowError])] = []
            for await result in group { results.append(result) }
            return results.sorted { $0.0 < $1.0 }
        }
        return (results.flatMap(\.1), results.flatMap(\.2))
    }

    /// Audits a batch's outcomes in one write: each entry alone paid its own commit (and fsync).
    private func audit(_ outcomes: ArraySlice<ImportOutcome>) async {
        await audit.recordAll(outcomes.map {
            AuditTrail.Entry($0.action == .created ? .accountImported : .accountUpdated, userId: $0.userId, details: ["by": "import"])
        }, context: .unknown)
    }

    /// How many rows are matched against the database in one read before anything is written: a read per row,
    /// a million of them one after another, was most of a large import's time.
    static let readChunk = 256

    func validate(_ record: ImportRecord) throws(ImportRowError) -> ImportedUser {
        let line = record.line
        func fail(_ message: String) -> ImportRowError { ImportRowError(line: line, message: message) }
        for key in record.fields.keys where !Self.knownFields.contains(key) { throw fail("unknown field \(key)") }
        func text(_ key: String) throws(ImportRowError) -> String? {
            switch record.fields[key] {
            case nil, .null?: return nil
            case .string(let value)?: return value.isEmpty ? nil : value
            case .number(let value)? where key == "external_id" || key == "uid" || key == "created_at":
                guard value == value.rounded(), abs(value) < 1e15 else { throw fail("\(key) must be an integer or a string") }
                return String(Int64(value))
            default: throw fail("\(key) must be a string")
            }
        }
        guard let rawEmail = try text("email") else { throw fail("email is missing") }
        guard let email = EmailAddress(rawEmail) else { throw fail("email \(rawEmail) is not a valid address") }
        let name = try text("name")
        if let name, name.utf8.count > 200 { throw fail("name is longer than 200 bytes") }
        var verified = false
        switch record.fields["verified"] {
        case nil, .null?: verified = try text("confirmed_at") != nil
        case .bool(let flag)?: verified = flag
        case .string(let value)?:
            switch value.lowercased() {
            case "true", "t", "1", "yes": verified = true
            case "false", "f", "0", "no", "": verified = false
            default: throw fail("verified must be true or false")
            }
        default: throw fail("verified must be true or false")
        }
        var createdAt: Date?
        if let value = try text("created_at") {
            guard let date = Self.parseTime(value) else { throw fail("created_at \(value) is not an ISO 8601 time or Unix seconds") }
            createdAt = date
        }
        if let date = createdAt, date > clock.now().addingTimeInterval(86_400) { throw fail("created_at is in the future") }
        if try text("password_hash") != nil, try text("encrypted_password") != nil {
            throw fail("give password_hash or encrypted_password, not both")
        }
        let hash: String?
        if let given = try text("password_hash") { hash = given } else { hash = try text("encrypted_password") }
        if let hash, PasswordHashFormat.of(hash) == nil {
            throw fail("password hash is not bcrypt ($2a$/$2b$/$2y$) or an Argon2id/Argon2i PHC string")
        }
        let productUserId = try text("external_id")
        if let productUserId, productUserId.utf8.count > 128 || productUserId.contains(where: { $0.isWhitespace || $0.isNewline }) {
            throw fail("external_id must be at most 128 bytes without spaces")
        }
        var identities: [ImportedIdentity] = []
        var rawIdentities: [[String: ImportValue]] = []
        if case .objects(let list)? = record.fields["identities"] { rawIdentities = list }
        else if record.fields["identities"] != nil, record.fields["identities"] != .null { throw fail("identities must be a list of objects") }
        if record.fields["provider"] != nil || record.fields["uid"] != nil {
            var single: [String: ImportValue] = [:]
            single["provider"] = record.fields["provider"]; single["uid"] = record.fields["uid"]; single["email"] = record.fields["identity_email"]
            rawIdentities.append(single)
        }
        for object in rawIdentities {
            guard case .string(let rawProvider)? = object["provider"], !rawProvider.isEmpty else { throw fail("an identity needs a provider") }
            let subject: String
            switch object["uid"] ?? object["subject"] {
            case .string(let value)? where !value.isEmpty: subject = value
            case .number(let value)? where value == value.rounded() && abs(value) < 1e15: subject = String(Int64(value))
            default: throw fail("the \(rawProvider) identity needs a uid")
            }
            let provider = Self.providerAliases[rawProvider] ?? rawProvider
            guard provider.utf8.count <= 64, provider.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }),
                  subject.utf8.count <= 255 else { throw fail("identity \(rawProvider) has an invalid provider or uid") }
            var identityEmail: String?
            if case .string(let value)? = object["email"], !value.isEmpty {
                guard let address = EmailAddress(value) else { throw fail("identity email \(value) is not a valid address") }
                identityEmail = address.value
            }
            for key in object.keys where !["provider", "uid", "subject", "email"].contains(key) { throw fail("unknown identity field \(key)") }
            identities.append(ImportedIdentity(provider: provider, subject: subject, email: identityEmail))
        }
        let newId = subjectSource == .productUserId ? (productUserId ?? RecordID.random()) : RecordID.random()
        return ImportedUser(line: line, email: email.value, displayName: name, emailVerified: verified, createdAt: createdAt,
                            passwordHash: hash, productUserId: productUserId, identities: identities, newId: newId)
    }

    /// ISO 8601 (`2024-05-01T10:00:00Z`, fractional seconds, or Rails' `2024-05-01 10:00:00 UTC`) or Unix seconds.
    static func parseTime(_ value: String) -> Date? {
        if let seconds = Double(value), seconds >= 0, seconds < 1e11 { return Date(timeIntervalSince1970: seconds) }
        var text = value.trimmingCharacters(in: .whitespaces)
        if text.hasSuffix(" UTC") { text = String(text.dropLast(4)) + "Z" }
        text = text.replacingOccurrences(of: " ", with: "T")
        if !text.hasSuffix("Z"), !text.contains("+"), text.count <= 26, text.filter({ $0 == "-" }).count == 2 { text += "Z" }
        let plain = ISO8601DateFormatter()
        if let date = plain.date(from: text) { return date }
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = fractional.date(from: text) { return date }
        // Microseconds (Rails' default precision): ISO8601DateFormatter reads at most milliseconds.
        if let dot = text.firstIndex(of: "."), let end = text[dot...].firstIndex(where: { !$0.isNumber && $0 != "." }) {
            let trimmed = String(text[..<dot]) + String(text[dot..<end].prefix(4)) + String(text[end...])
            return fractional.date(from: trimmed)
        }
        return nil
    }
}
