import Foundation
import GatehouseCrypto

/// PS256 tokens made by the `openssl` command-line tool: GatehouseCrypto only verifies PS256, so
/// an independent implementation produces the signatures.
enum OpenSSLTool {
    struct Failure: Error { let message: String }

    /// A fresh 2048-bit RSA key; returns a PS256 JWS over `payload` and the key's public JWK.
    static func ps256Token(payload: String) throws -> (String, GatehouseCrypto.JWK) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ps256-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = directory.appendingPathComponent("key.pem").path
        let input = directory.appendingPathComponent("input").path
        try run(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", key])
        let modulusLine = String(decoding: try run(["rsa", "-in", key, "-noout", "-modulus"]), as: UTF8.self)
        guard let hex = modulusLine.split(separator: "=").last?.trimmingCharacters(in: .whitespacesAndNewlines) else {
            throw Failure(message: "no modulus in \(modulusLine)")
        }
        let modulus = stride(from: 0, to: hex.count, by: 2).map { offset -> UInt8 in
            let start = hex.index(hex.startIndex, offsetBy: offset)
            return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16)!
        }
        let header = Base64URL.encode(Array(#"{"alg":"PS256","kid":"ps"}"#.utf8))
        let signingInput = header + "." + Base64URL.encode(Array(payload.utf8))
        try Data(signingInput.utf8).write(to: URL(fileURLWithPath: input))
        let signature = try run(["dgst", "-sha256", "-sign", key, "-sigopt", "rsa_padding_mode:pss",
                                 "-sigopt", "rsa_pss_saltlen:32", "-sigopt", "rsa_mgf1_md:sha256", input])
        let jwk = GatehouseCrypto.JWK(keyType: "RSA", modulus: Base64URL.encode(modulus), exponent: "AQAB", keyID: "ps", use: "sig")
        return (signingInput + "." + Base64URL.encode(Array(signature)), jwk)
    }

    @discardableResult
    private static func run(_ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw Failure(message: "openssl \(arguments.joined(separator: " ")) failed") }
        return data
    }
}
