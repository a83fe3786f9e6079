// The Hotwire Native bridge component `sign-in-with-oauth` is the product GatehouseHotwireNative of this package
// (Integrations/HotwireNative/Sources/GatehouseHotwireNative/SignInWithOAuthComponent.swift, Apple platforms only),
// which depends on hotwire-native-ios and this library. This library keeps the parts without a Hotwire dependency:
// WebAuthenticationSessionPresenter (ASWebAuthenticationSession, custom-scheme and https callbacks) and
// WebViewCookieImporter (the session cookie of /native/apple or /native/google into the web view).
