import Synchronization

/// Request metrics: counts by route, method and status, a latency histogram per route, in-flight requests.
/// Routes are labelled by pattern (`/users/{id}`), never by raw path, so the label set stays small.
public final class HTTPMetrics: Sendable {
    /// Histogram bucket bounds in seconds.
    public static let bucketBounds: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]

    private struct Histogram {
        var buckets = [UInt64](repeating: 0, count: HTTPMetrics.bucketBounds.count + 1)
        var count: UInt64 = 0
        var sum: Double = 0

        mutating func record(_ seconds: Double, bucket: Int) {
            buckets[bucket] += 1
            count += 1
            sum += seconds
        }
    }
    /// Everything counted for one route. One hash of the route string per request finds it; the few
    /// method/status pairs a route sees are then a short linear scan, not a second hashed key.
    private struct RouteStats {
        var latency = Histogram()
        var counts: [(method: String, status: Int, count: UInt64)] = []

        mutating func record(method: String, status: Int, seconds: Double, bucket: Int) {
            latency.record(seconds, bucket: bucket)
            for index in counts.indices where counts[index].status == status && counts[index].method == method {
                counts[index].count += 1
                return
            }
            counts.append((method, status, 1))
        }
    }

    private let routes = Mutex<[String: RouteStats]>([:])
    private let inFlight = Atomic<Int>(0)

    public init() {}

    public var inFlightCount: Int { inFlight.load(ordering: .relaxed) }

    func begin() { inFlight.add(1, ordering: .relaxed) }

    func end(route: String, method: String, status: Int, seconds: Double) {
        inFlight.subtract(1, ordering: .relaxed)
        let bucket = Self.bucketBounds.firstIndex { seconds <= $0 } ?? Self.bucketBounds.count
        routes.withLock { routes in
            // Mutated in place through the default subscript, so the arrays inside are never copied.
            routes[route, default: RouteStats()].record(method: method, status: status, seconds: seconds, bucket: bucket)
        }
    }

    /// Requests counted so far for a route and status (tests and health checks).
    public func requestCount(route: String, status: Int) -> UInt64 {
        routes.withLock { $0[route]?.counts.filter { $0.status == status }.reduce(0) { $0 + $1.count } ?? 0 }
    }

    public func render(into text: inout PrometheusText) {
        let snapshot = routes.withLock { $0 }
        text.family("gatehouse_http_requests_total", type: "counter", help: "HTTP requests by route, method and status.")
        let requests = snapshot.flatMap { route, stats in stats.counts.map { (route: route, method: $0.method, status: $0.status, count: $0.count) } }
        for key in requests.sorted(by: { ($0.route, $0.status) < ($1.route, $1.status) }) {
            text.sample("gatehouse_http_requests_total",
                        labels: [("route", key.route), ("method", key.method), ("status", String(key.status))],
                        value: Double(key.count))
        }
        text.family("gatehouse_http_request_duration_seconds", type: "histogram", help: "Time to answer a request.")
        for (route, histogram) in snapshot.map({ ($0.key, $0.value.latency) }).sorted(by: { $0.0 < $1.0 }) {
            var cumulative: UInt64 = 0
            for (index, bound) in Self.bucketBounds.enumerated() {
                cumulative += histogram.buckets[index]
                text.sample("gatehouse_http_request_duration_seconds_bucket",
                            labels: [("route", route), ("le", PrometheusText.format(bound))], value: Double(cumulative))
            }
            text.sample("gatehouse_http_request_duration_seconds_bucket", labels: [("route", route), ("le", "+Inf")],
                        value: Double(histogram.count))
            text.sample("gatehouse_http_request_duration_seconds_sum", labels: [("route", route)], value: histogram.sum)
            text.sample("gatehouse_http_request_duration_seconds_count", labels: [("route", route)],
                        value: Double(histogram.count))
        }
        text.family("gatehouse_http_requests_in_flight", type: "gauge", help: "Requests being handled now.")
        text.sample("gatehouse_http_requests_in_flight", value: Double(inFlightCount))
    }
}

/// Feeds `HTTPMetrics`. Put it first in the chain so it sees every request, even rejected ones.
public struct MetricsMiddleware: Middleware {
    let metrics: HTTPMetrics

    public init(_ metrics: HTTPMetrics) { self.metrics = metrics }

    public func prepare(_ request: inout Request) throws(HTTPError) { metrics.begin() }

    public func finish(_ request: Request, _ response: inout Response) {
        let elapsed = ContinuousClock.now - request.receivedAt
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        metrics.end(route: request.route ?? "(unmatched)", method: request.method.rawValue,
                    status: response.status.code, seconds: seconds)
    }
}
