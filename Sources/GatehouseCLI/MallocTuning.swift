#if canImport(Glibc)
import Glibc
#endif

/// glibc malloc settings for a long-running server on few cores (RSS after a benchmark run).
///
/// glibc gives threads that contend for the heap their own arenas, up to eight per core, and memory freed
/// into one arena is not reused by threads on another: requests hop between the I/O threads, the Swift
/// pool and the database queues, so freed blocks scatter across a dozen arenas and RSS keeps growing with
/// traffic. Two arenas keep contention low on the two I/O threads while freed memory gets reused.
/// `MALLOC_ARENA_MAX` in the environment still wins (glibc reads it first; we leave it alone then).
///
/// A 1 MiB trim threshold (`M_TRIM_THRESHOLD`; `MALLOC_TRIM_THRESHOLD_` in the environment wins): with
/// glibc's 128 KiB a request that needs a little more heap than the last one grows it with `brk` and the
/// free at its end trims it back (`brk`, or `madvise` in the second arena), so the next request faults the
/// same pages in afresh. On the account page that was about one `brk` and 0.7 `madvise` per request and a
/// fifth of its CPU in page faults; now up to 1 MiB of free heap top per arena stays mapped.
/// Idle RSS is unchanged (a 1 MiB `M_TOP_PAD` did the same for requests but cost 3.5 MB at rest). Argon2id
/// is not affected either way: libsodium maps its 19 MiB itself, `mmap` with `MAP_POPULATE`, per hash.
///
/// The mmap threshold is left dynamic on purpose: pinned low, every Argon2id hash maps and faults in its
/// 19 MiB afresh — 24 ms per hash on this machine against 2 ms from a reused heap — so sign-in keeps its
/// hash memory resident after a burst (RSS after the sign-in benchmark ~80 MB) instead.
enum MallocTuning {
    /// `M_ARENA_MAX` from glibc's <malloc.h>, which the Glibc module does not export (nor `mallopt`).
    private static let arenaMaxOption: Int32 = -8
    /// `M_TRIM_THRESHOLD`, likewise.
    private static let trimThresholdOption: Int32 = -1
    static let trimThreshold: Int32 = 1 << 20

    /// Hands the arenas' free pages back to the kernel (`malloc_trim(0)`), once start-up's one-off work is done:
    /// the account scan's cached pages and the Argon2id dummy hash leave megabytes free between live blocks,
    /// which the trim threshold (the heap's top only) never returns. On a million accounts that was 9 MB of
    /// idle RSS (38 → 29 MB).
    static func releaseFreeMemory() {
        #if canImport(Glibc)
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return }
        typealias MallocTrim = @convention(c) (Int) -> Int32
        _ = unsafeBitCast(symbol, to: MallocTrim.self)(0)
        #endif
    }

    static func apply(environment: [String: String]) {
        #if canImport(Glibc)
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
        if environment["MALLOC_ARENA_MAX"] == nil { _ = mallopt(arenaMaxOption, 2) }
        if environment["MALLOC_TRIM_THRESHOLD_"] == nil { _ = mallopt(trimThresholdOption, trimThreshold) }
        #endif
    }
}
