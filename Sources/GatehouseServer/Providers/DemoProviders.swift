import Foundation
import GatehouseHTTP

/// Demo mode's simulated providers, composed in from outside (the `GatehouseDemo` target) so the server
/// target does not depend on, or link, the provider simulator. Without one, `GATEHOUSE_DEMO=1` shows the
/// banner and mounts no simulated providers.
public protocol DemoProviders: Sendable {
    /// Fills the simulated providers (and the demo app) into `configuration`, unless it configures them
    /// itself, and returns what to mount.
    func setUp(_ configuration: inout GatehouseConfiguration, clock: @escaping @Sendable () -> Date) throws -> any MountedDemoProviders
}

/// Simulated providers mounted into the server (`/_sim`), reached in-process by the provider transport.
public protocol MountedDemoProviders: Sendable {
    /// The URL prefix the simulated providers' endpoints live under.
    var baseURL: String { get }
    /// A router for the in-process transport (the server never calls itself over the network).
    func makeRouter() -> Router
    /// Mounts the simulator's pages (its sign-in screens) into the server's router.
    func register(into router: inout Router)
}
