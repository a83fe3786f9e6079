import Foundation
import GatehouseClient

/// Verifies RS256/ES256 signatures with Python's `cryptography` package (installed alongside
/// oidc-provider-mock), standing in for the OpenSSL-backed verifier the CLI injects. This makes
/// the third-party test check real signatures on Linux, where Foundation has no RSA.
struct PythonSignatureVerifier: IDTokenSignatureVerifier {
    private static let script = #"""
    import base64, json, sys
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
    from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
    req = json.load(sys.stdin)
    b64 = lambda s: base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))
    integer = lambda s: int.from_bytes(b64(s), "big")
    data, sig = b64(req["input"]), b64(req["signature"])
    for key in req["keys"]:
        try:
            if req["alg"] == "RS256":
                rsa.RSAPublicNumbers(integer(key["e"]), integer(key["n"])).public_key().verify(sig, data, padding.PKCS1v15(), hashes.SHA256())
            elif req["alg"] == "ES256":
                pub = ec.EllipticCurvePublicNumbers(integer(key["x"]), integer(key["y"]), ec.SECP256R1()).public_key()
                pub.verify(encode_dss_signature(int.from_bytes(sig[:32], "big"), int.from_bytes(sig[32:], "big")), data, ec.ECDSA(hashes.SHA256()))
            else:
                continue
            print("valid"); sys.exit(0)
        except Exception:
            pass
    print("invalid"); sys.exit(1)
    """#

    func verify(signingInput: Data, signature: Data, header: JOSEHeader, jwks: JWKS) throws {
        let keys = jwks.candidateKeys(for: header)
        let request: [String: Any] = [
            "alg": header.alg,
            "input": Base64URL.encode(signingInput),
            "signature": Base64URL.encode(signature),
            "keys": keys.map { key in ["n": key.n ?? "", "e": key.e ?? "", "x": key.x ?? "", "y": key.y ?? ""] },
        ]
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [ProcessInfo.processInfo.environment["GATEHOUSE_PYTHON"] ?? "python3", "-c", Self.script]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        input.fileHandleForWriting.write(try JSONSerialization.data(withJSONObject: request))
        try input.fileHandleForWriting.close()
        let answer = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0, answer.hasPrefix("valid") else { throw IDTokenError.signatureInvalid }
    }
}
