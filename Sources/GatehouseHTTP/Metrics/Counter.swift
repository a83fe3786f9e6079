import Synchronization

/// A Prometheus counter with labels, safe to bump from any thread.
public final class Counter: Sendable {
    public let name: String
    public let help: String
    private let values = Mutex<[[String]: Double]>([:])
    private let labelNames: [String]

    /// - Parameter initial: label values rendered at 0 before their first increment, so a dashboard's
    ///   `rate()` sees every series from start (Prometheus' advice for known label sets).
    public init(name: String, help: String, labelNames: [String] = [], initial: [[String]] = []) {
        self.name = name; self.help = help; self.labelNames = labelNames
        precondition(initial.allSatisfy { $0.count == labelNames.count }, "label count mismatch for \(name)")
        values.withLock { values in for labels in initial { values[labels] = 0 } }
    }

    public func increment(_ labelValues: [String] = [], by amount: Double = 1) {
        precondition(labelValues.count == labelNames.count, "label count mismatch for \(name)")
        values.withLock { $0[labelValues, default: 0] += amount }
    }

    public func value(_ labelValues: [String] = []) -> Double { values.withLock { $0[labelValues] ?? 0 } }

    public func render(into text: inout PrometheusText) {
        text.family(name, type: "counter", help: help)
        let snapshot = values.withLock { $0 }
        if snapshot.isEmpty && labelNames.isEmpty { text.sample(name, value: 0) }
        for (labels, value) in snapshot.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
            text.sample(name, labels: Array(zip(labelNames, labels)), value: value)
        }
    }
}
