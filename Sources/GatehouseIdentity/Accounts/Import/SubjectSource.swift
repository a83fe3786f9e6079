/// What an imported user's OpenID Connect `sub` is (`users.subject_source`).
public enum SubjectSource: String, Sendable, Equatable {
    /// Gatehouse's own random id (the default). An imported external id is kept beside it.
    case gatehouse
    /// The external id the product already uses: a new imported account gets it as its Gatehouse
    /// id, so `sub` equals the product's old primary key and its foreign keys keep working.
    case externalId = "external_id"
}
