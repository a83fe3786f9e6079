// The Gatehouse bridge component for Hotwire Native Android apps (not built here: the server's machine has no
// Android SDK). Include it as a module (settings.gradle.kts: include(":gatehouse"); project(":gatehouse").projectDir =
// file("path/to/Integrations/Android")) or copy the Kotlin files into the app.
plugins {
    id("com.android.library")
    id("org.jetbrains.kotlin.android")
}

android {
    namespace = "dev.gatehouse.hotwire"
    compileSdk = 35
    defaultConfig {
        minSdk = 28
        // Overridden by the app (README.md); these defaults only let the library build on its own.
        manifestPlaceholders["gatehouseCallbackScheme"] = "gatehouse-app"
        manifestPlaceholders["gatehouseAppLinkHost"] = "app.invalid"
        manifestPlaceholders["gatehouseAppLinkPath"] = "/auth/native/callback"
    }
    compileOptions {
        sourceCompatibility = JavaVersion.VERSION_17
        targetCompatibility = JavaVersion.VERSION_17
    }
    kotlinOptions { jvmTarget = "17" }
}

dependencies {
    implementation("dev.hotwire:core:1.2.0")
    implementation("dev.hotwire:navigation-fragments:1.2.0")
    implementation("androidx.browser:browser:1.8.0")
    // Native Google: Credential Manager with Google's ID token option (the app needs a Google web client id).
    implementation("androidx.credentials:credentials:1.3.0")
    implementation("androidx.credentials:credentials-play-services-auth:1.3.0")
    implementation("com.google.android.libraries.identity.googleid:googleid:1.1.1")
}
