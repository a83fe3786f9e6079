#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Lets go of the executable's code pages once the server is ready (RSS idle ≤ 32 MB).
///
/// Most of the idle RSS is not heap but the executable's text: the kernel maps file pages in 64 KiB
/// "fault-around" batches, so start-up (migrations, configuration, key loading, the Swift runtime's
/// first casts) leaves ~17 MB of an ~80 MB text segment mapped, most of it code no request runs again.
/// `MADV_DONTNEED` on a read-only executable mapping only unmaps those pages: they are clean copies of
/// the file, still in the page cache, and the code a request needs faults back in (a minor fault, no
/// disk read) on first use. Only `r-xp` mappings of the executable itself are touched: writable or
/// relocated (RELRO) mappings hold private data and must never be dropped.
enum StartupPages {
    /// Returns the bytes of mappings advised, 0 when not on Linux or nothing matched.
    @discardableResult
    static func releaseExecutableText() -> Int {
        #if os(Linux)
        guard let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"),
              let maps = try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8) else { return 0 }
        var released = 0
        for line in maps.split(separator: "\n") {
            // "start-end perms offset dev inode path"
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count == 6, fields[1] == "r-xp",
                  fields[5].trimmingCharacters(in: .whitespaces) == executable else { continue }
            let bounds = fields[0].split(separator: "-")
            guard bounds.count == 2, let start = UInt(bounds[0], radix: 16), let end = UInt(bounds[1], radix: 16),
                  end > start, let address = UnsafeMutableRawPointer(bitPattern: start) else { continue }
            if madvise(address, Int(end - start), Int32(MADV_DONTNEED)) == 0 { released += Int(end - start) }
        }
        return released
        #else
        return 0
        #endif
    }
}
