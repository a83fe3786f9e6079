/// Tuning for an `SQLiteDatabase`; the defaults suit the server.
public struct SQLiteConfiguration: Sendable {
    /// Reader connections beside the single writer. Readers run queries in parallel under WAL;
    /// a handful is plenty on a small machine. Ignored (0) for in-memory databases.
    public var readerCount: Int
    /// How long a connection waits for another process's lock before giving up (then the
    /// caller gets `StoreError.unavailable`).
    public var busyTimeoutMilliseconds: Int32

    public init(readerCount: Int = 3, busyTimeoutMilliseconds: Int32 = 5_000) {
        self.readerCount = readerCount
        self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
    }
}
