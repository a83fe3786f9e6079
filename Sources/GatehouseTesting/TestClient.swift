import GatehouseHTTP

/// One test body, two transports: `InProcessClient` hands requests straight to the pipeline;
/// `SocketClient` sends them over a real TCP connection to a running `HTTPServer`.
public protocol TestClient: Sendable {
    func send(_ method: HTTPMethod, _ target: String, headers: HTTPHeaders, body: [UInt8]) async throws -> TestResponse
}

extension TestClient {
    public func get(_ target: String, headers: HTTPHeaders = HTTPHeaders()) async throws -> TestResponse {
        try await send(.get, target, headers: headers, body: [])
    }

    /// POSTs a URL-encoded form.
    public func post(_ target: String, form: [(String, String)], headers: HTTPHeaders = HTTPHeaders()) async throws -> TestResponse {
        var headers = headers
        headers.set("Content-Type", "application/x-www-form-urlencoded")
        return try await send(.post, target, headers: headers, body: Array(URLEncodedForm(pairs: form).encoded.utf8))
    }
}

/// A response as a test sees it, whichever transport carried it.
public struct TestResponse: Sendable {
    public let status: Int
    public let headers: HTTPHeaders
    public let body: [UInt8]

    public init(status: Int, headers: HTTPHeaders, body: [UInt8]) {
        self.status = status; self.headers = headers; self.body = body
    }

    public var text: String { String(decoding: body, as: UTF8.self) }
}

/// Sends requests to the pipeline without a socket.
public struct InProcessClient: TestClient {
    let pipeline: RequestPipeline
    let remoteAddress: String

    public init(_ pipeline: RequestPipeline, remoteAddress: String = "127.0.0.1") {
        self.pipeline = pipeline; self.remoteAddress = remoteAddress
    }

    public func send(_ method: HTTPMethod, _ target: String, headers: HTTPHeaders, body: [UInt8]) async throws -> TestResponse {
        let outcome = pipeline.start(method: method, target: target, headers: headers, body: body, remoteAddress: remoteAddress)
        let response: Response
        switch outcome {
        case .ready(let ready): response = ready
        case .pending(let work): response = await work()
        }
        // HEAD answers carry no body on the wire; mirror that here.
        return TestResponse(status: response.status.code, headers: response.headers,
                            body: method == .head ? [] : response.body)
    }
}
