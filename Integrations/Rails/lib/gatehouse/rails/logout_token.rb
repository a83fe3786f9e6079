require "jwt"

module Gatehouse
  module Rails
    # A verified OpenID Connect Back-Channel Logout 1.0 logout token (§2.6): signed by Gatehouse's published keys,
    # `iss` and `aud` this app's, recent `iat`, the back-channel logout event, no `nonce`, and `sub` or `sid`.
    class LogoutToken
      EVENT = "http://schemas.openid.net/event/backchannel-logout".freeze

      # Raised for any token that fails a check (the endpoint answers 400).
      class Invalid < StandardError; end

      attr_reader :claims

      # `jwks` is Gatehouse's key set loader (from discovery by default).
      def self.verify(token, config: Gatehouse::Rails.config, now: Time.now.to_i, jwks: Keys.loader(config.issuer))
        claims, header = JWT.decode(token.to_s, nil, true, algorithms: %w[RS256 ES256], jwks: jwks,
                                    iss: config.issuer, verify_iss: true, aud: config.client_id, verify_aud: true,
                                    verify_iat: true)
        raise Invalid, "typ is not logout+jwt" unless header["typ"].to_s.casecmp?("logout+jwt")
        raise Invalid, "iat too old" if claims["iat"].to_i < now - config.logout_token_max_age
        raise Invalid, "not a back-channel logout event" unless claims["events"].is_a?(Hash) && claims["events"].key?(EVENT)
        raise Invalid, "a logout token has no nonce" if claims.key?("nonce")
        raise Invalid, "neither sub nor sid" unless claims["sub"] || claims["sid"]
        new(claims)
      rescue JWT::DecodeError => e
        raise Invalid, e.message
      end

      def initialize(claims)
        @claims = claims
      end

      # The user at Gatehouse whose sessions end (`nil` when the token names only a session).
      def sub
        claims["sub"]
      end

      # The Gatehouse session (the ID token's `sid`) that ended (`nil`: every session of `sub`).
      def sid
        claims["sid"]
      end
    end
  end
end
