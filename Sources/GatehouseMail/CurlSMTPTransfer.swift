import CCurl

/// One blocking SMTP transaction with libcurl's easy interface: connect, EHLO, STARTTLS, AUTH,
/// MAIL FROM, RCPT TO, DATA. Blocks for up to the total timeout, so it must run on a thread of
/// its own, never on Swift's cooperative pool.
struct CurlSMTPTransfer: Sendable {
    let configuration: SMTPConfiguration

    /// Sends `message` once; `nil` on success. The error's `attempts` is 1: the caller counts retries.
    func send(_ message: RFC5322Message) -> SMTPMailError? {
        guard CurlRuntime.isInitialized, let handle = curl_easy_init() else {
            return SMTPMailError(kind: .transport, attempts: 1, detail: "libcurl could not be initialised")
        }
        defer { curl_easy_cleanup(handle) }
        var recipients: UnsafeMutablePointer<curl_slist>?
        for recipient in message.recipients { recipients = curl_slist_append(recipients, "<\(recipient)>") }
        defer { curl_slist_free_all(recipients) }
        let source = UploadSource(message.data)
        var errorText = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)

        let result: CURLcode = errorText.withUnsafeMutableBufferPointer { errorBuffer in
            withExtendedLifetime(source) {
                if let failed = configure(handle, message: message, recipients: recipients, source: source,
                                          errorBuffer: errorBuffer.baseAddress!) {
                    return failed
                }
                return curl_easy_perform(handle)
            }
        }
        guard result != CURLE_OK else { return nil }
        var reply = 0
        _ = gh_curl_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &reply)
        let curlText = errorText.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        let detail = curlText.isEmpty ? String(cString: curl_easy_strerror(result)) : curlText
        return Self.classify(result, reply: reply, detail: scrubbed(detail))
    }

    /// Sets every option; returns the first failing code (an option this libcurl lacks, say).
    private func configure(_ handle: UnsafeMutableRawPointer, message: RFC5322Message,
                           recipients: UnsafeMutablePointer<curl_slist>?, source: UploadSource,
                           errorBuffer: UnsafeMutablePointer<CChar>) -> CURLcode? {
        let useSSL: curl_usessl = switch configuration.startTLS {
        case _ where configuration.usesImplicitTLS: CURLUSESSL_ALL
        case .required: CURLUSESSL_ALL
        case .optional: CURLUSESSL_TRY
        case .off: CURLUSESSL_NONE
        }
        var strings: [(CURLoption, String)] = [
            (CURLOPT_URL, configuration.url),
            // Whatever the URL says, this handle only ever speaks SMTP.
            (CURLOPT_PROTOCOLS_STR, "smtp,smtps"),
            (CURLOPT_MAIL_FROM, "<\(message.envelopeFrom)>"),
        ]
        if let username = configuration.username { strings.append((CURLOPT_USERNAME, username)) }
        if let password = configuration.password { strings.append((CURLOPT_PASSWORD, password)) }
        if let caFile = configuration.caFile { strings.append((CURLOPT_CAINFO, caFile)) }
        let longs: [(CURLoption, Int)] = [
            // Timeouts must not use signals: this runs on one of many threads.
            (CURLOPT_NOSIGNAL, 1),
            (CURLOPT_CONNECTTIMEOUT, configuration.connectTimeoutSeconds),
            (CURLOPT_TIMEOUT, configuration.totalTimeoutSeconds),
            (CURLOPT_USE_SSL, Int(useSSL.rawValue)),
            (CURLOPT_UPLOAD, 1),
        ]
        for (option, value) in strings {
            let code = gh_curl_easy_setopt_string(handle, option, value)
            guard code == CURLE_OK else { return code }
        }
        for (option, value) in longs {
            let code = gh_curl_easy_setopt_long(handle, option, value)
            guard code == CURLE_OK else { return code }
        }
        let pointers: [(CURLoption, UnsafeMutableRawPointer?)] = [
            (CURLOPT_MAIL_RCPT, UnsafeMutableRawPointer(recipients)),
            (CURLOPT_READDATA, Unmanaged.passUnretained(source).toOpaque()),
            (CURLOPT_ERRORBUFFER, UnsafeMutableRawPointer(errorBuffer)),
        ]
        for (option, value) in pointers {
            let code = gh_curl_easy_setopt_pointer(handle, option, value)
            guard code == CURLE_OK else { return code }
        }
        let code = gh_curl_easy_setopt_io_callback(handle, CURLOPT_READFUNCTION) { buffer, size, count, userdata in
            guard let buffer, let userdata else { return 0 }
            return Unmanaged<UploadSource>.fromOpaque(userdata).takeUnretainedValue().read(into: buffer, capacity: size * count)
        }
        return code == CURLE_OK ? nil : code
    }

    /// Maps a libcurl failure and the last SMTP reply onto the error kinds callers act on.
    static func classify(_ code: CURLcode, reply: Int, detail: String) -> SMTPMailError {
        let replyCode = reply > 0 ? reply : nil
        func error(_ kind: SMTPMailError.Kind) -> SMTPMailError {
            SMTPMailError(kind: kind, replyCode: replyCode, attempts: 1, detail: detail)
        }
        // The SMTP reply decides first: 4xx means "try again later" whatever curl made of it (RFC 5321 §4.2.1).
        if (400...499).contains(reply) { return error(.temporarilyRejected) }
        switch code {
        case CURLE_LOGIN_DENIED:
            return error(.authenticationFailed)
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_GOT_NOTHING:
            return error(.connectionFailed)
        case CURLE_SEND_ERROR, CURLE_RECV_ERROR:
            // curl reports a refused MAIL FROM or RCPT TO as a send error: the 5xx reply tells them apart
            // from a dropped connection.
            return (500...599).contains(reply) ? error(.rejected) : error(.connectionFailed)
        case CURLE_OPERATION_TIMEDOUT:
            return error(.timedOut)
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_USE_SSL_FAILED,
             CURLE_SSL_CERTPROBLEM, CURLE_SSL_CACERT_BADFILE:
            return error(.tls)
        default:
            return (500...599).contains(reply) ? error(.rejected) : error(.transport)
        }
    }

    /// libcurl's messages name hosts and codes, not credentials; scrub anyway, as a second line of defence.
    private func scrubbed(_ text: String) -> String {
        guard let password = configuration.password, !password.isEmpty else { return text }
        return text.replacingOccurrences(of: password, with: "<redacted>")
    }
}

/// The message bytes handed out to libcurl's read callback. Created, read and released on the
/// sending thread only, so it needs no locking and does not cross concurrency domains.
private final class UploadSource {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func read(into buffer: UnsafeMutablePointer<CChar>, capacity: Int) -> Int {
        let count = min(capacity, bytes.count - offset)
        bytes.withUnsafeBytes { raw in
            UnsafeMutableRawPointer(buffer).copyMemory(from: raw.baseAddress! + offset, byteCount: count)
        }
        offset += count
        return count
    }
}

/// `curl_global_init` must run once before any handle and is not thread-safe in every libcurl
/// build; a Swift static is initialised exactly once, under a lock.
enum CurlRuntime {
    static let isInitialized: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK
}
