import Foundation

/// An sRGB colour written `#rrggbb` (or `#rgb`), with the WCAG 2.2 relative luminance and contrast ratio
/// the start-up palette check needs.
public struct BrandColor: Sendable, Equatable, CustomStringConvertible {
    public let red: UInt8, green: UInt8, blue: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8) { self.red = red; self.green = green; self.blue = blue }

    /// Parses `#rrggbb` or `#rgb` (case-insensitive); nil for anything else, named colours included, so the
    /// contrast check always knows the exact colour the browser paints.
    public init?(hex text: String) {
        guard text.hasPrefix("#") else { return nil }
        var digits = String(text.dropFirst())
        if digits.count == 3 { digits = digits.map { "\($0)\($0)" }.joined() }
        guard digits.count == 6, digits.allSatisfy(\.isHexDigit), let value = UInt32(digits, radix: 16) else { return nil }
        red = UInt8(value >> 16 & 0xff); green = UInt8(value >> 8 & 0xff); blue = UInt8(value & 0xff)
    }

    /// `#rrggbb`, lower case.
    public var description: String { String(format: "#%02x%02x%02x", red, green, blue) }

    /// WCAG 2.2 relative luminance (sRGB, 0 black … 1 white).
    public var relativeLuminance: Double {
        func channel(_ value: UInt8) -> Double {
            let c = Double(value) / 255
            return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
        }
        return 0.2126 * channel(red) + 0.7152 * channel(green) + 0.0722 * channel(blue)
    }

    /// WCAG contrast ratio, 1 … 21, the same whichever colour is in front.
    public func contrast(with other: BrandColor) -> Double {
        let a = relativeLuminance, b = other.relativeLuminance
        return (max(a, b) + 0.05) / (min(a, b) + 0.05)
    }

    /// This colour moved `fraction` (0 … 1) of the way towards `other`.
    public func mixed(with other: BrandColor, fraction: Double) -> BrandColor {
        func mix(_ a: UInt8, _ b: UInt8) -> UInt8 { UInt8((Double(a) + (Double(b) - Double(a)) * fraction).rounded()) }
        return BrandColor(red: mix(red, other.red), green: mix(green, other.green), blue: mix(blue, other.blue))
    }

    public static let white = BrandColor(red: 255, green: 255, blue: 255)
    public static let black = BrandColor(red: 0, green: 0, blue: 0)
}
