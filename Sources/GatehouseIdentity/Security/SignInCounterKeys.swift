import GatehouseCrypto

/// The keys a password attempt's failures are counted under (``AccountService/authenticate(email:password:context:deviceCookie:)``).
///
/// Both account keys carry a digest of the password hash in force, so setting a new password (reset, change)
/// starts every counter of the account afresh without the store having to find and delete them.
struct SignInCounterKeys: Equatable {
    /// The account and this client: its known-device id, or its address.
    let accountAndClient: String
    /// The account, over every client that never signed in to it.
    let accountAnyClient: String
    let isKnownDevice: Bool

    init(account: String, passwordHash: String?, ipKey: String, device: String?) {
        let generation = passwordHash.map { String(SHA256.hex($0).prefix(16)) } ?? "-"
        accountAnyClient = account + "|" + generation
        accountAndClient = accountAnyClient + "|" + (device.map { "device:" + $0 } ?? "ip:" + ipKey)
        isKnownDevice = device != nil
    }
}
