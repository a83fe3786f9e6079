// swift-tools-version:5.9
// The Gatehouse bridge component for Hotwire Native iOS apps. Apple platforms only: this package is not built on
// Linux (the server's CI), because hotwire-native-ios needs UIKit and WebKit. Add it to the app in Xcode
// (File › Add Package Dependencies… › Add Local… › Integrations/HotwireNative) or by URL.
import PackageDescription

let package = Package(
    name: "GatehouseHotwireNative",
    platforms: [.iOS(.v15)],
    products: [
        .library(name: "GatehouseHotwireNative", targets: ["GatehouseHotwireNative"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hotwired/hotwire-native-ios", from: "1.2.0"),
        .package(name: "Gatehouse", path: "../.."),
    ],
    targets: [
        .target(name: "GatehouseHotwireNative", dependencies: [
            .product(name: "HotwireNative", package: "hotwire-native-ios"),
            .product(name: "GatehouseClient", package: "Gatehouse"),
            .product(name: "GatehouseClientApple", package: "Gatehouse"),
        ]),
    ]
)
