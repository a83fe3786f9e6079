/// The version of this package (the SDK and the Hotwire Native component), as tagged in Gatehouse's repository for
/// SwiftPM (`.package(url: …, from: "0.1.0")`).
public enum GatehouseSDKVersion {
    public static let current = "0.1.0"
}
