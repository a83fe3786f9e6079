import FuzzSupport
import GatehouseHTTP

/// `application/x-www-form-urlencoded` bodies and query strings, percent-decoding and HTML escaping.
///
/// The first byte picks a mode: decode the rest as a form body (then: decode∘encode is the identity,
/// the encoding uses only unreserved characters, `single` refuses exactly the repeated keys), or
/// build pairs from NUL-separated strings (then: encode∘decode is the identity, and HTML escaping
/// leaves no markup character behind).
func fuzzForms(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var reader = ByteReader(bytes(data, size))
    if reader.byte() & 1 == 0 {
        checkDecodedForm(Array(reader.rest()))
    } else {
        checkEncodedPairs(Array(reader.rest()))
    }
    return 0
}

private func checkDecodedForm(_ body: [UInt8]) {
    guard let form = try? URLEncodedForm(parsing: body) else {
        // Refused input must be refused for a reason a browser could cause: a bad escape or bad UTF-8.
        return
    }
    let encoded = form.encoded
    require(encoded.utf8.allSatisfy { isUnreserved($0) || $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "=") || $0 == UInt8(ascii: "&") },
            "encoding left a reserved character: \(encoded)")
    let again = try? URLEncodedForm(parsing: encoded)
    require(again == form, "decode∘encode is not the identity for \(form.pairs)")
    require(again?.encoded == encoded, "encoding is not a fixed point")
    for (key, _) in form.pairs {
        let values = form.all(key)
        require(form[key] == values.first, "subscript is not the first value of \(key)")
        let single = try? form.single(key)
        require((values.count > 1) == (single == nil), "single(\(key)) disagrees with all(\(key)).count = \(values.count)")
    }
    // A body without '+' or '%' decodes to its own text, split on '&' and '='.
    if !body.contains(UInt8(ascii: "%")) && !body.contains(UInt8(ascii: "+")) {
        require(form.pairs.allSatisfy { !$0.key.contains("&") && !$0.value.contains("&") && !$0.key.contains("=") },
                "a literal separator survived decoding")
    }
}

private func checkEncodedPairs(_ input: [UInt8]) {
    let strings = input.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    var pairs: [(String, String)] = []
    var index = 0
    while index + 1 < strings.count {
        pairs.append((strings[index], strings[index + 1]))
        index += 2
    }
    let form = URLEncodedForm(pairs: pairs)
    let parsed = try? URLEncodedForm(parsing: form.encoded)
    require(parsed == form, "encode∘decode is not the identity for \(pairs)")

    for text in strings {
        let encoded = PercentDecoding.encode(text)
        require((try? PercentDecoding.decode(Array(encoded.utf8), plusIsSpace: true)) == text, "percent round trip (+) failed: \(text)")
        require((try? PercentDecoding.decode(Array(encoded.utf8), plusIsSpace: false)) == text, "percent round trip failed: \(text)")

        let escaped = HTMLEscaping.escape(text)
        require(!escaped.unicodeScalars.contains { "<>\"'".unicodeScalars.contains($0) }, "HTML escaping left markup: \(escaped)")
        require(unescapeHTML(escaped) == text, "HTML escaping lost text: \(text)")
    }
}

private func isUnreserved(_ b: UInt8) -> Bool {
    (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39)
        || b == UInt8(ascii: "-") || b == UInt8(ascii: ".") || b == UInt8(ascii: "_") || b == UInt8(ascii: "~")
}

/// The inverse of `HTMLEscaping.escape`, to prove nothing is lost: every `&` must start one of its
/// five entities. Works on bytes, not Characters (a combining mark would merge with `;` into one Character).
private func unescapeHTML(_ text: String) -> String? {
    let bytes = Array(text.utf8)
    let entities: [([UInt8], UInt8)] = [("&amp;", "&"), ("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'")]
        .map { (Array($0.0.utf8), $0.1.utf8.first!) }
    var out: [UInt8] = []
    var index = 0
    while index < bytes.count {
        guard bytes[index] == UInt8(ascii: "&") else { out.append(bytes[index]); index += 1; continue }
        guard let (entity, byte) = entities.first(where: { bytes[index...].starts(with: $0.0) }) else { return nil }
        out.append(byte)
        index += entity.count
    }
    return String(decoding: out, as: UTF8.self)
}
