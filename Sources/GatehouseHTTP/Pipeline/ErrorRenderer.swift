/// Turns an `HTTPError` into the response a client sees. The server layer supplies one that renders
/// its HTML pages; OAuth endpoints build their RFC 6749 errors themselves.
public typealias ErrorRenderer = @Sendable (HTTPError, Request) -> Response

/// The default rendering: JSON for clients that ask for it, a minimal HTML page otherwise.
public enum DefaultErrorRenderer {
    public static let render: ErrorRenderer = { error, request in
        var response: Response
        if request.prefersJSON {
            response = .json(["error": error.status.reasonPhrase, "message": error.publicMessage,
                              "request_id": request.requestID], status: error.status)
        } else {
            let title = HTMLEscaping.escape(error.status.description)
            let message = HTMLEscaping.escape(error.publicMessage)
            response = .html("""
                <!doctype html><html lang="en"><head><meta charset="utf-8"><title>\(title)</title></head>
                <body><h1>\(title)</h1><p>\(message)</p><p><small>Request \(HTMLEscaping.escape(request.requestID))</small></p></body></html>
                """, status: error.status)
        }
        for (name, value) in error.headers { response.headers.set(name, value) }
        return response
    }
}

/// Escaping for text placed in HTML content and attribute values.
public enum HTMLEscaping {
    public static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
