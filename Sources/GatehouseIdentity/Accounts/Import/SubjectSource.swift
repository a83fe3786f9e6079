/// What an imported user's OpenID Connect `sub` is (`users.subject_source`).
public enum SubjectSource: String, Sendable, Equatable {
    /// Gatehouse's own random id (the default). An imported product user id is kept beside it.
    case gatehouse
    /// The user id the product already uses (`external_id` in the import): a new imported account gets it as its Gatehouse
    /// id, so `sub` equals the product's old primary key and its foreign keys keep working.
    case productUserId = "external_id"
}
