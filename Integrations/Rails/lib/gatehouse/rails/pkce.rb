require "base64"
require "digest"
require "securerandom"

module Gatehouse
  module Rails
    # PKCE (RFC 7636, S256) for omniauth_openid_connect releases without their own `pkce` option (Debian's 0.10).
    # Applied only when the installed strategy lacks it.
    module PKCE
      def authorize_uri
        return super unless options[:pkce]
        verifier = session["omniauth.pkce.verifier"] = SecureRandom.urlsafe_base64(48)
        challenge = Base64.urlsafe_encode64(Digest::SHA256.digest(verifier), padding: false)
        "#{super}&#{URI.encode_www_form(code_challenge: challenge, code_challenge_method: "S256")}"
      end

      def callback_phase
        @pkce_verifier = session.delete("omniauth.pkce.verifier") if options[:pkce]
        super
      end

      # The token request carries the verifier (the client is built after discovery, inside callback_phase).
      def client
        @client ||= super.tap do |built|
          verifier = @pkce_verifier
          built.define_singleton_method(:access_token!) { |**args| super(**args, code_verifier: verifier) } if verifier
        end
      end

      def self.install
        strategy = OmniAuth::Strategies::OpenIDConnect
        return if strategy.default_options.key?("pkce") || strategy.ancestors.include?(self)
        strategy.option :pkce, false
        strategy.prepend(self)
      end
    end
  end
end
