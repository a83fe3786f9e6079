import Foundation

/// The two MIME encodings a plain-text message needs: RFC 2047 encoded-words for headers and
/// RFC 2045 quoted-printable for the body.
enum MIMEEncoding {
    /// The header value unchanged when it is printable ASCII, otherwise `=?UTF-8?B?…?=` words cut
    /// only between characters and joined by folding whitespace (CRLF SP). Each line stays within
    /// 76 characters (RFC 2047 §2), the first counting the `prefix` ("Subject: ") before it.
    static func headerText(_ text: String, after prefix: String = "") -> String {
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text }
        // 12 characters of "=?UTF-8?B?" and "?="; every 4 base64 characters carry 3 bytes.
        func byteLimit(lineStart: Int) -> Int { max(3, (76 - lineStart - 12) / 4 * 3) }
        var limit = byteLimit(lineStart: prefix.count)
        var words: [String] = []
        var chunk: [UInt8] = []
        for character in text {
            let bytes = Array(String(character).utf8)
            if !chunk.isEmpty, chunk.count + bytes.count > limit {
                words.append(encodedWord(chunk))
                chunk = []
                limit = byteLimit(lineStart: 1)  // continuation lines start with one space
            }
            chunk += bytes  // A single grapheme longer than the limit stays whole: a long word beats a broken one.
        }
        if !chunk.isEmpty { words.append(encodedWord(chunk)) }
        return words.joined(separator: "\r\n ")
    }

    private static func encodedWord(_ bytes: [UInt8]) -> String {
        "=?UTF-8?B?" + Data(bytes).base64EncodedString() + "?="
    }

    /// Quoted-printable (RFC 2045 §6.7) of lines already split on line breaks: encoded lines of at
    /// most 76 characters, soft breaks (`=` CRLF) inside long lines, trailing blanks encoded so
    /// relays that strip them change nothing. Returns the lines joined with CRLF.
    static func quotedPrintable(lines: [Substring]) -> String {
        var output: [UInt8] = []
        let hex = Array("0123456789ABCDEF".utf8)
        for (lineIndex, line) in lines.enumerated() {
            if lineIndex > 0 { output += [0x0D, 0x0A] }
            let bytes = Array(line.utf8)
            var column = 0
            for (byteIndex, byte) in bytes.enumerated() {
                let isLast = byteIndex == bytes.count - 1
                let literal = (byte >= 33 && byte <= 126 && byte != UInt8(ascii: "="))
                    || ((byte == 0x20 || byte == 0x09) && !isLast)
                let piece: [UInt8] = literal ? [byte] : [UInt8(ascii: "="), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
                // Keep room for the soft-break "=" unless this piece ends the line.
                let limit = isLast ? 76 : 75
                if column + piece.count > limit {
                    output += [UInt8(ascii: "="), 0x0D, 0x0A]
                    column = 0
                }
                output += piece
                column += piece.count
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
