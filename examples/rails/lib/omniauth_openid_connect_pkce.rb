# PKCE (RFC 7636, S256) for Debian's omniauth-openid-connect 0.10, which predates the upstream gem's `pkce: true`
# option (omniauth_openid_connect >= 0.4 has it built in: drop this file there). Not Gatehouse-specific.
require "omniauth_openid_connect"

module OmniAuthOpenIDConnectPKCE
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
end

OmniAuth::Strategies::OpenIDConnect.option :pkce, false
OmniAuth::Strategies::OpenIDConnect.prepend(OmniAuthOpenIDConnectPKCE)
