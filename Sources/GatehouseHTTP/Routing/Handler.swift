/// What a route runs. `immediate` handlers answer on the I/O thread (cheap work: no I/O, no hashing);
/// `deferred` handlers run as a Swift task while the connection is suspended, so a slow database call
/// or an Argon2id hash never holds one of the server's few I/O threads.
public enum Handler: Sendable {
    case immediate(@Sendable (Request) throws -> Response)
    case deferred(@Sendable (Request) async throws -> Response)
}
