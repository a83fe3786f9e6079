import GatehouseHotwireNative
import HotwireNative
import UIKit

/// The demo iOS app, wired to `make run`'s demo: Gatehouse at http://127.0.0.1:8080 (the simulator's loopback is
/// the Mac's), the registered app `demo-native` with the callback scheme `gatehouse-demo` and the bundle id
/// `com.example.gatehouse.demo.app` (Sign in with Apple natively through the simulated Apple in demo mode is not
/// possible — Apple's sheet is real — so `nativeProviders` stays empty here; set ["apple"] against a real Apple team).
final class SceneDelegate: UIResponder, UIWindowSceneDelegate {
    var window: UIWindow?

    static let gatehouse = URL(string: ProcessInfo.processInfo.environment["GATEHOUSE_URL"] ?? "http://127.0.0.1:8080")!
    static let configuration = GatehouseHotwireConfiguration(gatehouseURL: gatehouse, appID: "demo-native", callbackScheme: "gatehouse-demo")

    private lazy var navigator = Navigator(configuration: .init(name: "main", startLocation: Self.gatehouse.appending(path: "account")))

    func scene(_ scene: UIScene, willConnectTo session: UISceneSession, options connectionOptions: UIScene.ConnectionOptions) {
        Hotwire.config.applicationUserAgentPrefix = Self.configuration.userAgentMarker
        SignInWithOAuthComponent.configuration = Self.configuration
        Hotwire.registerBridgeComponents([SignInWithOAuthComponent.self])
        // One path configuration: Gatehouse's rules (in a product app, pasted into the app's own file).
        Hotwire.loadPathConfiguration(from: [.server(Self.gatehouse.appending(path: "configurations/ios_v1.json"))])
        guard let windowScene = scene as? UIWindowScene else { return }
        window = UIWindow(windowScene: windowScene)
        window?.rootViewController = navigator.rootViewController
        window?.makeKeyAndVisible()
        navigator.start()
    }
}
