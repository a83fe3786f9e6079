/// Decides from the bytes that have arrived on a new connection whether they can become an HTTP/1.1
/// request, before libmicrohttpd sees them. libmicrohttpd holds a connection that sends blank lines,
/// binary garbage or a TLS hello until its timeout, and passes on (or truncates at) a NUL byte in a
/// header; screened here, those are answered 400 (or closed) at once.
///
/// The whole head — request line and headers, up to the blank line that ends them — is screened, not
/// only what fits in the first read: garbage 20 KiB into a head is refused like garbage at its start.
/// The body is never looked at (it may be binary).
enum RequestHeadScreen {
    enum Verdict: Equatable {
        /// Not enough bytes yet to tell.
        case needMore
        /// A plausible head, complete: hand the connection to libmicrohttpd.
        case http
        /// Text that is not HTTP: answer 400 and close.
        case badRequest
        /// No HTTP is possible (a TLS or SSLv2 hello): close without answering.
        case close
        /// The head does not end within the bytes the screen may look at: answer 431 and close.
        case tooLarge
    }

    /// How far a previous look got, so a head arriving in pieces is scanned once, not again at every piece.
    struct Progress: Equatable {
        /// Bytes known to be a valid start of a head that has not ended yet (0: nothing known).
        var clean = 0
        /// Where the request line starts (after tolerated blank lines), once known.
        var requestLineStart = 0
    }

    /// Longest method accepted (`OPTIONS`, `PROPFIND`… are far shorter).
    static let maximumMethodLength = 16
    /// RFC 9112 §2.2: a server SHOULD ignore at least one empty line before the request line; we allow two.
    static let maximumLeadingBlankLines = 2

    /// Classifies everything that has arrived. `limit` is the most the caller can look at: a head that
    /// has not ended when `bytes.count` reaches it is `tooLarge`.
    static func classify(_ bytes: UnsafeRawBufferPointer, limit: Int = .max) -> Verdict {
        var progress = Progress()
        return classify(bytes, limit: limit, progress: &progress)
    }

    /// The same, resuming after `progress` (which it advances while the verdict is `needMore`).
    static func classify(_ bytes: UnsafeRawBufferPointer, limit: Int, progress: inout Progress) -> Verdict {
        let cr: UInt8 = 13, lf: UInt8 = 10
        var index: Int
        if progress.clean > 0, progress.clean <= bytes.count {
            // Step back two bytes so a terminator split across pieces (LF | CR LF) is still seen.
            index = max(progress.requestLineStart + 1, progress.clean - 2)
        } else {
            index = 0
            var blankLines = 0
            while index < bytes.count, bytes[index] == cr || bytes[index] == lf {
                if bytes[index] == lf { blankLines += 1 }
                if blankLines > maximumLeadingBlankLines { return .badRequest }
                index += 1
            }
            guard index < bytes.count else { return .needMore }
            let first = bytes[index]
            if first == 0x16 || first == 0x80 { return .close }   // TLS handshake record, SSLv2 hello
            let methodStart = index
            while index < bytes.count, isTokenCharacter(bytes[index]) {
                index += 1
                if index - methodStart > maximumMethodLength { return .badRequest }
            }
            guard index < bytes.count else { return .needMore }
            guard index > methodStart, bytes[index] == UInt8(ascii: " ") else { return .badRequest }
            progress.requestLineStart = methodStart
        }
        // The request line's rest and the headers: no NUL or other control bytes (libmicrohttpd would
        // truncate at them or pass them on), up to the empty line that ends the head.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == lf {
                // LF LF or LF CR LF: the head is complete; what follows is the body.
                if index + 1 < bytes.count, bytes[index + 1] == lf { return .http }
                if index + 2 < bytes.count, bytes[index + 1] == cr, bytes[index + 2] == lf { return .http }
                if index + 2 >= bytes.count { break }   // the terminator may still be arriving
            } else if byte == 0 || byte == 0x7f || (byte < 0x20 && byte != cr && byte != 9) {
                return .badRequest
            }
            index += 1
        }
        // Every byte before `index` is clean; the last one or two are looked at again next time.
        progress.clean = max(progress.clean, index)
        if bytes.count >= limit { return .tooLarge }
        return .needMore
    }

    /// The request target of a complete head's request line (`/healthz` from `GET /healthz?x HTTP/1.1`,
    /// without the query), when the method is GET or HEAD; nil otherwise.
    static func readOnlyTarget(_ bytes: UnsafeRawBufferPointer) -> Substring? {
        var index = 0
        while index < bytes.count, bytes[index] == 13 || bytes[index] == 10 { index += 1 }
        var end = index
        while end < bytes.count, bytes[end] != 10 { end += 1 }
        let line = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[index..<end]), as: UTF8.self)
        let parts = line.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "GET" || parts[0] == "HEAD", parts[2].hasPrefix("HTTP/1.") else { return nil }
        let target = parts[1]
        return target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first
    }

    /// RFC 9110 `tchar`.
    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"),
             UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
             UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"): true
        default: false
        }
    }
}
