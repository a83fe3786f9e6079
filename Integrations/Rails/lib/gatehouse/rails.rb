require "omniauth"
require "omniauth_openid_connect"
require "gatehouse/rails/version"
require "gatehouse/rails/configuration"
require "gatehouse/rails/pkce"
require "gatehouse/rails/keys"
require "gatehouse/rails/logout_token"
require "gatehouse/rails/webhook"
require "gatehouse/rails/step_up"
require "gatehouse/rails/omniauth_setup"
require "gatehouse/rails/engine"

module Gatehouse
  # Gatehouse for a Rails app: `Gatehouse::Rails.configure { |config| ... }` in an initializer, and
  # `mount Gatehouse::Rails::Engine => "/gatehouse"` in config/routes.rb.
  module Rails
    class << self
      # The one configuration (read at each request, so an initializer may set it at any point of boot).
      def config
        @config ||= Configuration.new
      end

      def configure
        yield config
        config
      end

      # The claims of the ID token OmniAuth has just verified in the callback (`request.env["omniauth.auth"]`).
      def id_token_claims(auth)
        JWT.decode(auth.credentials.id_token.to_s, nil, false).first
      end

      # RP-initiated logout: Gatehouse's end_session_endpoint (from discovery) with the hint and the way back.
      def logout_url(id_token:, post_logout_redirect_uri:)
        endpoint = Keys.discovery(config.issuer).end_session_endpoint
        query = { id_token_hint: id_token, post_logout_redirect_uri: post_logout_redirect_uri }.compact
        "#{endpoint}?#{URI.encode_www_form(query)}"
      end
    end
  end
end
