/// Splits one fuzz input into the choices and parts a structured harness needs, deterministically,
/// so a saved input always replays the same way.
public struct ByteReader {
    private let bytes: [UInt8]
    private var index = 0

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public var isAtEnd: Bool { index >= bytes.count }

    /// One byte (0 once the input is used up).
    public mutating func byte() -> UInt8 {
        guard index < bytes.count else { return 0 }
        defer { index += 1 }
        return bytes[index]
    }

    /// A choice among `count` options.
    public mutating func choice(_ count: Int) -> Int { count <= 1 ? 0 : Int(byte()) % count }

    /// The bytes up to (not including) the next `separator`, or the rest.
    public mutating func part(until separator: UInt8) -> ArraySlice<UInt8> {
        let start = min(index, bytes.count)
        let end = bytes[start...].firstIndex(of: separator) ?? bytes.count
        index = end + 1
        return bytes[start..<end]
    }

    /// Everything not read yet.
    public mutating func rest() -> ArraySlice<UInt8> {
        let start = min(index, bytes.count)
        index = bytes.count
        return bytes[start...]
    }
}
