import CQREncode
import GatehouseHTTP

/// A QR code drawn as inline SVG, through Debian's libqrencode: the authenticator app's `otpauth://`
/// URI never leaves Gatehouse (no chart service), and inline SVG needs no image source the page's
/// Content-Security-Policy would have to allow.
enum QRCodeSVG {
    /// The modules of `text` (true = dark), row by row; nil when libqrencode cannot encode it.
    static func modules(_ text: String) -> [[Bool]]? {
        // Level M: the error correction authenticator apps' scanners cope with at a glance.
        guard let code = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1) else { return nil }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        let data = code.pointee.data!
        return (0..<width).map { y in (0..<width).map { x in data[y * width + x] & 1 == 1 } }
    }

    /// The SVG element, one path of unit squares with the four-module quiet zone the standard asks for.
    static func svg(_ text: String, label: String) -> HTML? {
        guard let rows = modules(text) else { return nil }
        let size = rows.count + 8
        var path = ""
        for (y, row) in rows.enumerated() {
            for (x, dark) in row.enumerated() where dark { path += "M\(x + 4) \(y + 4)h1v1h-1z" }
        }
        return HTML(unescaped: """
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(size) \(size)" width="\(size * 5)" height="\(size * 5)" role="img" \
            shape-rendering="crispEdges"><title>
            """) + "\(label)" + HTML(unescaped: """
            </title><rect width="\(size)" height="\(size)" fill="#fff"/><path d="\(path)" fill="#000"/></svg>
            """)
    }
}
