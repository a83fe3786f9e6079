/// Writes the Prometheus text exposition format (version 0.0.4).
public struct PrometheusText {
    public private(set) var output = ""

    public init() {}

    public mutating func family(_ name: String, type: String, help: String) {
        output += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
    }

    public mutating func sample(_ name: String, labels: [(String, String)] = [], value: Double) {
        output += name
        if !labels.isEmpty {
            output += "{" + labels.map { "\($0.0)=\"\(Self.escapeLabel($0.1))\"" }.joined(separator: ",") + "}"
        }
        output += " " + Self.format(value) + "\n"
    }

    static func escapeLabel(_ value: String) -> String {
        value.replacingAll("\\", with: "\\\\").replacingAll("\"", with: "\\\"").replacingAll("\n", with: "\\n")
    }

    static func format(_ value: Double) -> String {
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}

extension String {
    func replacingAll(_ target: String, with replacement: String) -> String {
        guard contains(target) else { return self }
        return split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
