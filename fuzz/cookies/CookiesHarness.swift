import FuzzSupport
import GatehouseHTTP

/// `Cookie` request headers (RFC 6265 §5.4) and `Set-Cookie` construction.
///
/// The first byte picks a mode. Parsing: every cookie kept has a non-empty token name (no separator,
/// space or control byte) and a `cookie-octet` value, at most one per `;` part, and re-serialising the
/// pairs parses back to the same pairs. Building: a `SetCookie` that constructs renders a header whose
/// first pair is exactly its name and value, with no attribute smuggled in, and the `__Host-` /
/// `__Secure-` rules hold.
func fuzzCookies(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var reader = ByteReader(bytes(data, size))
    let mode = reader.byte()
    if mode & 1 == 0 {
        checkParsing(Array(reader.rest()))
    } else {
        checkBuilding(&reader, flags: mode >> 1)
    }
    return 0
}

private func checkParsing(_ input: [UInt8]) {
    let headers = input.split(separator: 0x0A, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    let cookies = RequestCookies(headerValues: headers)
    let parts = headers.reduce(0) { $0 + $1.utf8.split(separator: UInt8(ascii: ";")).count }
    require(cookies.count <= parts, "more cookies (\(cookies.count)) than ';' parts (\(parts))")
    for (name, value) in cookies.pairs {
        require(!name.isEmpty && name.utf8.allSatisfy(isTokenByte), "cookie name with a separator or control byte: \(Array(name.utf8))")
        require(value.utf8.allSatisfy(isCookieOctet), "cookie value outside cookie-octet: \(Array(value.utf8))")
        require(cookies[name] == cookies.all(name).first, "subscript is not the first value of \(name)")
    }
    let rendered = cookies.pairs.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    require(RequestCookies(headerValues: [rendered]) == cookies, "re-serialised cookies parse differently: \(rendered)")
}

private func checkBuilding(_ reader: inout ByteReader, flags: UInt8) {
    let name = String(decoding: reader.part(until: 0), as: UTF8.self)
    let value = String(decoding: reader.part(until: 0), as: UTF8.self)
    let path: String? = flags & 1 == 0 ? "/" : String(decoding: reader.part(until: 0), as: UTF8.self)
    let domain: String? = flags & 2 == 0 ? nil : String(decoding: reader.part(until: 0), as: UTF8.self)
    let secure = flags & 4 != 0
    let sameSite: SetCookie.SameSite? = [nil, .lax, .strict, SetCookie.SameSite.none][Int(flags >> 3) & 3]
    let maxAge: Int? = flags & 32 == 0 ? nil : Int(reader.byte()) - 128

    guard let cookie = try? SetCookie(name: name, value: value, maxAge: maxAge, path: path, domain: domain,
                                      secure: secure, sameSite: sameSite) else { return }
    let header = cookie.headerValue
    require(!header.utf8.contains { $0 < 0x20 || $0 == 0x7F }, "Set-Cookie with a control byte: \(Array(header.utf8))")
    let expectedParts = 1 + (maxAge == nil ? 0 : 1) + (path == nil ? 0 : 1) + (domain == nil ? 0 : 1) + (secure ? 1 : 0) + 1
        + (sameSite == nil ? 0 : 1)
    require(header.utf8.split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: false).count == expectedParts,
            "an attribute was smuggled into \(header)")
    let parsed = RequestCookies(headerValues: [header])
    require(parsed.pairs.first.map { $0 == (name, value) } ?? false, "\(header) does not read back as \(name)=\(value)")
    if name.hasPrefix("__Host-") { require(secure && path == "/" && domain == nil, "__Host- rules broken: \(header)") }
    if name.hasPrefix("__Secure-") { require(secure, "__Secure- without Secure: \(header)") }
    if sameSite == SetCookie.SameSite.none { require(secure, "SameSite=None without Secure: \(header)") }
}

private func isTokenByte(_ b: UInt8) -> Bool {
    b > 0x20 && b < 0x7F && !"()<>@,;:\\\"/[]?={} \t".utf8.contains(b)
}

private func isCookieOctet(_ b: UInt8) -> Bool {
    b == 0x21 || (0x23...0x2B).contains(b) || (0x2D...0x3A).contains(b) || (0x3C...0x5B).contains(b) || (0x5D...0x7E).contains(b)
}
