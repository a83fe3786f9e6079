import GatehouseHTTP
import GatehouseIdentity
import GatehouseStore

/// Every metric `/metrics` exposes: the request metrics, the counters the services bump, the
/// `process_*` families and `gatehouse_build_info`. Counters with a known label set start at 0 for
/// each label combination, so a series exists before its first event.
public struct ServerMetrics: Sendable {
    public let http = HTTPMetrics()
    public let databaseErrors = Counter(name: "gatehouse_database_errors_total",
                                        help: "Database operations that failed, by operation.", labelNames: ["operation"],
                                        initial: [["readyz"], ["audit"], ["maintenance"], ["outbound_enqueue"]])
    public let maintenancePurged = Counter(name: "gatehouse_maintenance_purged_rows_total",
                                           help: "Expired rows removed by background maintenance, by table.", labelNames: ["table"],
                                           initial: MaintenanceService.purgedTables.map { [$0] })
    public let outboundDeliveries = Counter(name: "gatehouse_outbound_deliveries_total",
                                            help: "Webhook and back-channel logout delivery attempts, by kind and outcome.",
                                            labelNames: ["kind", "outcome"],
                                            initial: ["webhook", "backchannel_logout"].flatMap { kind in
                                                ["delivered", "failed", "dropped"].map { [kind, $0] } })
    /// Sign-ins by method (`password`, `native_handoff` or a provider id) and result.
    public let signIns: Counter
    /// Tokens issued at `/oauth/token`, by grant type.
    public let tokensIssued = Counter(name: "gatehouse_tokens_issued_total", help: "Token responses issued, by grant type.",
                                      labelNames: ["grant"], initial: ClientRegistry.supportedGrants.sorted().map { [$0] })

    public static let signInResults = ["succeeded", "failed", "rate_limited"]

    /// - Parameter providers: the enabled provider ids, so their sign-in series start at 0 too.
    public init(providers: [String]) {
        let methods = ["password", "native_handoff"] + providers.filter { $0 != "password" && $0 != "native_handoff" }
        signIns = Counter(name: "gatehouse_sign_ins_total", help: "Sign-in attempts, by method and result.",
                          labelNames: ["method", "result"],
                          initial: methods.flatMap { method in Self.signInResults.map { [method, $0] } })
    }

    /// The Prometheus text of everything above.
    public func render() -> String {
        var text = PrometheusText()
        text.family("gatehouse_build_info", type: "gauge", help: "Always 1; the labels name the running build.")
        text.sample("gatehouse_build_info", labels: [("version", GatehouseBuild.version),
                                                     ("schema", String(StoreSchema.latestVersion))], value: 1)
        http.render(into: &text)
        for counter in [databaseErrors, maintenancePurged, outboundDeliveries, signIns, tokensIssued] { counter.render(into: &text) }
        ProcessMetrics.render(into: &text)
        return text.output
    }

    /// Counts the audited sign-in outcomes (the audit trail's observer: one place sees every method).
    var signInObserver: @Sendable (AuditEventType, String?, ClientContext, [String: String]) -> Void {
        { [signIns] type, _, _, details in
            let result: String
            switch type {
            case .signInSucceeded: result = "succeeded"
            case .signInFailed, .providerSignInFailed: result = "failed"
            case .signInRateLimited: result = "rate_limited"
            default: return
            }
            signIns.increment([Self.signInMethod(details), result])
        }
    }

    /// The method an audited sign-in used: the provider for provider sign-ins, the hand-off for a native
    /// app's redemption, the password otherwise.
    static func signInMethod(_ details: [String: String]) -> String {
        if let method = details["method"] ?? details["provider"] { return method }
        if details["via"] == "native_handoff" { return "native_handoff" }
        return "password"
    }
}

/// What this build is.
public enum GatehouseBuild {
    /// The release version (`gatehouse version`, the Debian package's version, `gatehouse_build_info`).
    public static let version = "0.1.0"
}
