# Gatehouse as the app's OpenID Connect provider: a confidential client with PKCE, configured by discovery.
# GATEHOUSE_ISSUER is Gatehouse's public URL: https://app.example/auth (one origin) or https://id.example (own host).
require Rails.root.join("lib/omniauth_openid_connect_pkce").to_s

SWD.url_builder = URI::HTTP if ENV.fetch("GATEHOUSE_ISSUER").start_with?("http://") # loopback demo and tests only
OpenIDConnect.http_config { |http| http.ssl_config.add_trust_ca(ENV["GATEHOUSE_CA_FILE"]) } if ENV["GATEHOUSE_CA_FILE"] # private CA

OmniAuth.config.path_prefix = "/login" # OmniAuth's default /auth is where Gatehouse lives in the one-origin shape

Rails.application.config.middleware.use OmniAuth::Builder do
  provider :openid_connect,
    name: :gatehouse, issuer: ENV.fetch("GATEHOUSE_ISSUER"), discovery: true, pkce: true,
    scope: %i[openid email profile], client_auth_method: :basic,
    client_options: { identifier: ENV.fetch("GATEHOUSE_CLIENT_ID"), secret: ENV.fetch("GATEHOUSE_CLIENT_SECRET"),
                      redirect_uri: "#{ENV.fetch("APP_URL")}/login/gatehouse/callback" },
    # Per request: `prompt=none` for the silent re-login, `provider=` to go straight to Apple, Google or GitHub.
    setup: lambda { |env|
      params, options = Rack::Request.new(env).params, env["omniauth.strategy"].options
      options[:prompt] = :none if params["prompt"] == "none"
      options[:extra_authorize_params] = { provider: params["provider"] } if %w[apple google github].include?(params["provider"])
    }
end

# RP-initiated logout at Gatehouse's end_session_endpoint (from discovery), back to the app afterwards.
def gatehouse_logout_url(id_token)
  endpoint = OpenIDConnect::Discovery::Provider::Config.discover!(ENV.fetch("GATEHOUSE_ISSUER")).end_session_endpoint
  query = { id_token_hint: id_token, post_logout_redirect_uri: "#{ENV.fetch("APP_URL")}/session/signed-out" }.compact
  "#{endpoint}?#{query.to_query}"
end
