import Foundation

/// DPoP proofs (RFC 9449) checked by a verifier written apart from Gatehouse and its SDK: Python's `cryptography`
/// behind `e2e/dpop_client.py`, so a proof both sides accept is not one mistake shared.
public enum IndependentDPoPVerifier {
    /// The repository's root, where `e2e/dpop_client.py` lives.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Checks each request (`proof`, `method`, `url`, optional `access_token`) and returns one result a request
    /// (`ok`, and for a good proof its `jkt` and `claims`).
    public static func verify(_ requests: [[String: String]]) throws -> [[String: Any]] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", root.appendingPathComponent("e2e/dpop_client.py").path]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        for request in requests {
            input.fileHandleForWriting.write(try JSONSerialization.data(withJSONObject: request))
            input.fileHandleForWriting.write(Data("\n".utf8))
        }
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }
}
