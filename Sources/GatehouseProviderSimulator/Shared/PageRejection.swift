import GatehouseHTTP

/// A request the simulator answers with a finished page (typically a provider-styled error page)
/// instead of continuing; thrown by request parsing, caught by the route.
struct PageRejection: Error {
    let response: Response
}

extension Response {
    /// Runs `body`, turning a ``PageRejection`` into its page.
    static func catchingRejection(_ body: () throws -> Response) throws -> Response {
        do { return try body() } catch let rejection as PageRejection { return rejection.response }
    }
}

extension SimulatedAccount {
    /// Reads the picker form, answering a bad entry with `provider`'s error page.
    static func fromPicker(_ form: URLEncodedForm, provider: String) throws(PageRejection) -> SimulatedAccount {
        do { return try SimulatedAccount(pickerForm: form) } catch {
            throw PageRejection(response: SimulatorPages.error(provider: provider, code: "invalid_request", message: error.publicMessage))
        }
    }
}
