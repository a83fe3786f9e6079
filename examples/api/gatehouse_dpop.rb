# Checks the DPoP proof (RFC 9449) that must come with a DPoP-bound Gatehouse access token, with Debian's ruby-jwt.
#
#   claims = GATEHOUSE_TOKENS.verify!(token)                          # the access token, as for a Bearer token
#   GATEHOUSE_DPOP.verify!(claims, token, request.headers["DPoP"], method: request.method, url: request.url)
#
# A token whose claims carry `cnf.jkt` was bound by Gatehouse to the client's key: it is only good with
# `Authorization: DPoP <token>` and a fresh proof signed by that key. Checks: `typ: dpop+jwt`; `alg` from the
# allow-list (never `none` or HMAC); `jwk` a public key whose RFC 7638 thumbprint is the token's `cnf.jkt`; the
# signature; `htm` and `htu` (query and fragment dropped) name this request; `iat` within `max_age` seconds;
# `ath` is the token's SHA-256; `jti` not seen before (kept in memory here: one process, use a shared cache for more).
require "base64"
require "digest"
require "json"
require "jwt"
require "uri"

class GatehouseDPoP
  class Invalid < StandardError; end

  ALGORITHMS = %w[ES256 PS256 RS256].freeze
  PRIVATE_MEMBERS = %w[d p q dp dq qi k].freeze

  def initialize(max_age: 60)
    @max_age, @seen, @lock = max_age, {}, Mutex.new
  end

  def verify!(claims, token, proof, method:, url:)
    jkt = claims.dig("cnf", "jkt") or raise Invalid, "the access token is not DPoP-bound"
    raise Invalid, "one DPoP proof header is required" if proof.to_s.empty? || proof.include?(",")
    header = JSON.parse(Base64.urlsafe_decode64(proof.split(".").first.to_s.then { |s| s + "=" * (-s.size % 4) }))
    raise Invalid, "typ must be dpop+jwt" unless header["typ"] == "dpop+jwt"
    raise Invalid, "alg #{header["alg"].inspect} is not allowed" unless ALGORITHMS.include?(header["alg"])
    jwk = header["jwk"]
    raise Invalid, "jwk must be a public key" unless jwk.is_a?(Hash) && (jwk.keys & PRIVATE_MEMBERS).empty?
    key = JWT::JWK.import(jwk)
    raise Invalid, "the proof's key is not the token's" unless JWT::JWK::Thumbprint.new(key).generate == jkt
    payload, = JWT.decode(proof, key.keypair, true, algorithms: [header["alg"]])
    raise Invalid, "htm is not #{method}" unless payload["htm"] == method.to_s.upcase
    raise Invalid, "htu is not #{url}" unless normalize(payload["htu"]) == normalize(url)
    raise Invalid, "iat is outside the window" unless (Time.now.to_i - payload["iat"].to_i).abs <= @max_age
    ath = Base64.urlsafe_encode64(Digest::SHA256.digest(token), padding: false)
    raise Invalid, "ath does not match the access token" unless payload["ath"] == ath
    remember!(jkt, payload["jti"].to_s)
    payload
  rescue JWT::DecodeError, JSON::ParserError, ArgumentError => e
    raise Invalid, e.message
  end

  private

  def normalize(url)
    uri = URI(url.to_s)
    raise Invalid, "htu must be an absolute http(s) URL" unless uri.is_a?(URI::HTTP) && uri.host
    port = uri.port == uri.default_port ? "" : ":#{uri.port}"
    "#{uri.scheme.downcase}://#{uri.host.downcase}#{port}#{uri.path.empty? ? "/" : uri.path}"
  end

  def remember!(jkt, jti)
    raise Invalid, "jti is missing" if jti.empty?
    @lock.synchronize do
      now = Time.now.to_i
      @seen.delete_if { |_, seen_at| now - seen_at > 2 * @max_age }
      raise Invalid, "the DPoP proof was already used" if @seen.key?([jkt, jti])
      @seen[[jkt, jti]] = now
    end
  end
end
