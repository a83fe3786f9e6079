/// Decides from the first bytes of a connection whether it can become an HTTP/1.1 request, before
/// libmicrohttpd sees it. libmicrohttpd holds a connection that sends blank lines, binary garbage or a
/// TLS hello until its timeout; screened here, those are answered 400 (or closed) at once.
enum RequestHeadScreen {
    enum Verdict: Equatable {
        /// Not enough bytes yet to tell.
        case needMore
        /// A plausible request line: hand the connection to libmicrohttpd.
        case http
        /// Text that is not HTTP: answer 400 and close.
        case badRequest
        /// No HTTP is possible (a TLS or SSLv2 hello): close without answering.
        case close
    }

    /// Longest method accepted (`OPTIONS`, `PROPFIND`… are far shorter).
    static let maximumMethodLength = 16
    /// RFC 9112 §2.2: a server SHOULD ignore at least one empty line before the request line; we allow two.
    static let maximumLeadingBlankLines = 2

    static func classify(_ bytes: UnsafeRawBufferPointer) -> Verdict {
        let cr: UInt8 = 13, lf: UInt8 = 10
        var index = 0
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
        // The rest of what has arrived (request line and headers): no NUL or other control bytes, which
        // libmicrohttpd would otherwise truncate at or pass on.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0 || byte == 0x7f || (byte < 0x20 && byte != cr && byte != lf && byte != 9) { return .badRequest }
            index += 1
        }
        return .http
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
