import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `application/x-www-form-urlencoded` encoding (WHATWG URL §5), as token endpoints expect.
enum FormBody {
    /// Characters left as-is; everything else is percent-encoded, space included (as `%20`,
    /// which every server accepts and which avoids `+` ambiguity).
    private static let unreserved = CharacterSet(charactersIn:
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    static func encode(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? value
    }

    static func encode(_ pairs: [(String, String)]) -> Data {
        Data(pairs.map { "\(encode($0.0))=\(encode($0.1))" }.joined(separator: "&").utf8)
    }

    /// Decodes a form/query string into ordered pairs, keeping duplicates (callers check them).
    static func decode(_ string: String) -> [(String, String)] {
        string.split(separator: "&", omittingEmptySubsequences: true).map { part in
            let pieces = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decodeComponent(_ s: Substring) -> String {
                let spaced = s.replacingOccurrences(of: "+", with: " ")
                return spaced.removingPercentEncoding ?? spaced
            }
            return (decodeComponent(pieces[0]), pieces.count > 1 ? decodeComponent(pieces[1]) : "")
        }
    }
}

extension URLRequest {
    /// A POST with a form body and `Accept: application/json` (GitHub answers form-encoded otherwise).
    static func formPost(_ url: URL, _ pairs: [(String, String)]) -> URLRequest {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.httpBody = FormBody.encode(pairs)
        return request
    }
}

extension URL {
    /// `self` with `pairs` appended to the query, keeping any query already there.
    func appendingQuery(_ pairs: [(String, String)]) -> URL {
        guard !pairs.isEmpty, var components = URLComponents(url: self, resolvingAgainstBaseURL: false) else { return self }
        let encoded = pairs.map { "\(FormBody.encode($0.0))=\(FormBody.encode($0.1))" }.joined(separator: "&")
        if let existing = components.percentEncodedQuery, !existing.isEmpty {
            components.percentEncodedQuery = existing + "&" + encoded
        } else {
            components.percentEncodedQuery = encoded
        }
        return components.url ?? self
    }
}

extension URL {
    /// `base` + `path` as a string join, so `https://h/app` + `/native/redeem` keeps the `/app`
    /// prefix and a trailing slash on the base is not doubled.
    func appendingAbsolutePath(_ path: String) -> URL {
        URL(string: ProviderDiscovery.issuerString(self) + path)!
    }
}
