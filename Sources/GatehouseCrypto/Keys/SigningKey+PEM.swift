extension SigningKey {
    /// The private key as PKCS#8 PEM (`BEGIN PRIVATE KEY`), the format of Apple's `.p8` files.
    ///
    /// Exists so the provider simulator's demo setup can mint an Apple-style key pair and hand the
    /// private half to Gatehouse; ``SigningKey/init(pem:)`` reads it back. Never log the result.
    public func pkcs8PEM() throws(JOSEError) -> String {
        do { return try evp.privateKeyPEM() } catch { throw .crypto(error) }
    }
}
