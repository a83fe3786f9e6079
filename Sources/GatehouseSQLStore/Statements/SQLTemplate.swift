/// A statement written with named parameters (`\(Parameter.userId)`), turned once into the one
/// placeholder style, `?`, and the order to bind values in. A query that uses a parameter several
/// times names it each time; `bindings` repeats the value where the text does, so no statement
/// counts placeholders by hand or relies on a backend's `$n` numbering.
public struct SQLTemplate<Parameter: Hashable & Sendable>: Sendable, ExpressibleByStringInterpolation {
    /// The SQL text, with a `?` for every parameter.
    public let sql: String
    /// The parameter each `?` stands for, in order.
    public let order: [Parameter]

    public init(stringLiteral value: String) {
        sql = value
        order = []
    }

    public init(stringInterpolation: StringInterpolation) {
        sql = stringInterpolation.sql
        order = stringInterpolation.order
    }

    /// The values to bind, `value(parameter)` for each `?` in order.
    public func bindings(_ value: (Parameter) -> any SQLBindable) -> [any SQLBindable] {
        order.map(value)
    }

    public struct StringInterpolation: StringInterpolationProtocol {
        var sql = ""
        var order: [Parameter] = []

        public init(literalCapacity: Int, interpolationCount: Int) {
            sql.reserveCapacity(literalCapacity + interpolationCount)
        }

        public mutating func appendLiteral(_ literal: String) { sql += literal }

        /// A parameter: `?` in the text.
        public mutating func appendInterpolation(_ parameter: Parameter) {
            sql += "?"
            order.append(parameter)
        }

        /// A fragment with parameters of its own.
        public mutating func appendInterpolation(_ fragment: SQLTemplate<Parameter>) {
            sql += fragment.sql
            order += fragment.order
        }

        /// Plain SQL text (a column list, a dialect word): never a value.
        public mutating func appendInterpolation(sql text: String) { sql += text }
    }
}
