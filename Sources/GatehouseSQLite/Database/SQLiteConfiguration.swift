/// Tuning for an `SQLiteDatabase`; the defaults suit the server.
public struct SQLiteConfiguration: Sendable {
    /// Reader connections beside the single writer. Readers run queries in parallel under WAL;
    /// a handful is plenty on a small machine. Ignored (0) for in-memory databases.
    public var readerCount: Int
    /// How long a connection waits for another process's lock before giving up (then the
    /// caller gets `StoreError.unavailable`).
    public var busyTimeoutMilliseconds: Int32
    /// When a commit reaches the disk (docs/sqlite-durability.md). `.full`, the default, syncs the
    /// WAL before a write is acknowledged; concurrent writes share that sync (group commit).
    public var synchronous: SQLiteSynchronous
    /// WAL size, in pages, past which the checkpointer connection copies it back into the database
    /// file (SQLite's own default auto-checkpoint is 1000, run by the committing connection).
    public var checkpointPages: Int32

    public init(readerCount: Int = 3, busyTimeoutMilliseconds: Int32 = 5_000, synchronous: SQLiteSynchronous = .full,
                checkpointPages: Int32 = 1000) {
        self.readerCount = readerCount
        self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
        self.synchronous = synchronous
        self.checkpointPages = checkpointPages
    }
}

/// SQLite's `PRAGMA synchronous` in WAL mode.
public enum SQLiteSynchronous: String, Sendable, CaseIterable {
    /// Every commit syncs the WAL before it is acknowledged: a power loss loses nothing acknowledged.
    case full
    /// The WAL is synced only at checkpoints: a power loss (not a process crash) can roll back the
    /// last acknowledged commits. Never the default (a lost rotation would revive a used refresh token).
    case normal

    var pragmaValue: String { rawValue.uppercased() }
}
