# Validates Gatehouse access tokens (RFC 9068 JWTs) in the product's API, with Debian's ruby-jwt (2.5).
#
#   verifier = GatehouseAccessToken.new(issuer: "https://app.example/auth", audience: "https://api.example")
#   claims = verifier.verify!(bearer_token, scope: "notes.read")   # raises GatehouseAccessToken::Invalid
#
# Checks: ES256 signature with a key from Gatehouse's JWKS (cached; refetched once when a token names an unknown
# `kid`, at most every 60 s, so key rotation needs no restart), header `typ: at+jwt` (an ID token is not an access
# token), `iss`, `aud`, `exp`/`nbf` (30 s leeway) and the required scopes.
require "json"
require "jwt"
require "net/http"

class GatehouseAccessToken
  class Invalid < StandardError; end
  class InsufficientScope < Invalid; end

  def initialize(issuer:, audience:, refetch_interval: 60)
    @issuer, @audience, @refetch_interval = issuer, audience, refetch_interval
    @jwks, @fetched_at, @lock = nil, nil, Mutex.new
  end

  def verify!(token, scope: nil)
    claims, header = JWT.decode(token, nil, true, algorithms: ["ES256"], jwks: method(:keys),
                                iss: @issuer, verify_iss: true, aud: @audience, verify_aud: true,
                                verify_expiration: true, verify_not_before: true, leeway: 30)
    raise Invalid, "not an access token (typ #{header["typ"].inspect})" unless header["typ"].to_s.downcase.delete_prefix("application/") == "at+jwt"
    missing = Array(scope) - claims["scope"].to_s.split
    raise InsufficientScope, "missing scope #{missing.join(" ")}" unless missing.empty?
    claims
  rescue JWT::DecodeError => e
    raise Invalid, e.message
  end

  private

  # ruby-jwt calls this with kid_not_found: true when a token names a key it does not have.
  def keys(options = {})
    @lock.synchronize do
      stale = @jwks.nil? || (options[:kid_not_found] && Time.now - @fetched_at > @refetch_interval)
      if stale
        @jwks = JSON.parse(get(JSON.parse(get("#{@issuer}/.well-known/openid-configuration")).fetch("jwks_uri")))
        @fetched_at = Time.now
      end
      @jwks
    end
  end

  def get(url)
    response = Net::HTTP.get_response(URI(url))
    raise Invalid, "#{url} answered #{response.code}" unless response.is_a?(Net::HTTPSuccess)
    response.body
  end
end
