#if canImport(Glibc)
import Glibc
#endif

/// Gives the heap's free pages back to the kernel once the server goes quiet after work
/// (issue 17: RSS after the benchmark run ≤ 64 MB).
///
/// glibc only returns memory from the top of a heap, and only past a trim threshold that grows with
/// the largest blocks freed, so after a burst (refresh rotations, Argon2id sign-ins) RSS stayed at the
/// burst's high-water mark: ~40 MB of free pages in the arenas (measured with `malloc_trim(0)` from
/// gdb: 77 → 37 MB). `malloc_trim(0)` walks every arena and `MADV_DONTNEED`s the free pages inside.
///
/// It runs only when the process was busy since the last trim and then used under 5% of one core
/// over a whole check interval: never under sustained load (the walk holds each arena's lock, and
/// trimmed pages fault back in when reused), at most once per quiet spell, and within about two
/// intervals after a burst ends. Idle, it costs one `clock_gettime` per interval.
final class HeapTrimmer: Sendable {
    private let task: Task<Void, Never>

    /// Starts checking every `interval`. The start-up's garbage counts as work: the first quiet
    /// interval trims.
    init(interval: Duration = .seconds(1)) {
        task = Task.detached(priority: .background) {
            guard let trim = Self.mallocTrim() else { return }
            let quietCPUFraction = 0.05
            var worked = true
            var lastCPU = Self.processCPUSeconds()
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                let cpu = Self.processCPUSeconds()
                let used = cpu - lastCPU
                lastCPU = cpu
                let window = Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18
                if used > quietCPUFraction * window {
                    worked = true
                } else if worked {
                    _ = trim(0)
                    worked = false
                    lastCPU = Self.processCPUSeconds()   // the trim's own CPU is not new work
                }
            }
        }
    }

    func stop() { task.cancel() }

    /// `malloc_trim` from glibc, which the Glibc module does not export.
    private static func mallocTrim() -> (@convention(c) (Int) -> Int32)? {
        #if canImport(Glibc)
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
        #else
        return nil
        #endif
    }

    /// CPU time (user + system) of the whole process so far.
    private static func processCPUSeconds() -> Double {
        #if canImport(Glibc)
        var now = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
        #else
        return 0
        #endif
    }
}
