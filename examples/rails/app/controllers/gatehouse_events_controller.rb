require "jwt"
require "net/http"
require "openssl"

# What Gatehouse tells the app without a browser (docs/events.md): back-channel logout tokens and signed webhooks.
# Both are server-to-server POSTs: no cookies, no CSRF token; they are authenticated by signature instead.
class GatehouseEventsController < ActionController::Base
  skip_forgery_protection
  LOGOUT_EVENT = "http://schemas.openid.net/event/backchannel-logout".freeze
  REPLAY_WINDOW = 300 # seconds, as Gatehouse documents for webhook timestamps

  # OpenID Connect Back-Channel Logout 1.0 §2.6: verify the logout token, then end the sessions it names.
  def backchannel_logout
    claims = verified_logout_token(params.require(:logout_token))
    sessions = claims["sid"] ? Session.where(sid: claims["sid"]) : Session.all
    sessions = sessions.joins(:user).where(users: { gatehouse_sub: claims["sub"] }) if claims["sub"]
    sessions.destroy_all
    response.headers["Cache-Control"] = "no-store"
    head :ok
  rescue JWT::DecodeError, ActionController::ParameterMissing, ArgumentError => e
    logger.info("back-channel logout refused: #{e.class}: #{e.message}")
    response.headers["Cache-Control"] = "no-store"
    render json: { error: "invalid_request" }, status: :bad_request
  end

  # Webhooks: HMAC-SHA256 over "timestamp.body", a fresh timestamp, and each event id applied once.
  def webhook
    body = request.raw_post
    timestamp = request.headers["Gatehouse-Timestamp"].to_s
    return head(:unauthorized) unless timestamp.match?(/\A\d{1,12}\z/) && (Time.now.to_i - timestamp.to_i).abs <= REPLAY_WINDOW
    expected = "v1=" + OpenSSL::HMAC.hexdigest("SHA256", ENV.fetch("GATEHOUSE_WEBHOOK_SECRET"), "#{timestamp}.#{body}")
    signatures = request.headers["Gatehouse-Signature"].to_s.split(",").map(&:strip)
    return head(:unauthorized) unless signatures.any? { |s| ActiveSupport::SecurityUtils.secure_compare(s, expected) }

    event = JSON.parse(body)
    GatehouseEvent.transaction do
      # A redelivery of an event already applied: acknowledge it, change nothing.
      return head(:ok) if GatehouseEvent.exists?(event_id: event.fetch("id"))
      GatehouseEvent.create!(event_id: event.fetch("id"), event_type: event.fetch("type"))
      apply(event)
    end
    head :ok
  rescue JSON::ParserError, KeyError
    head :bad_request
  end

  private

  def apply(event)
    sub = event.dig("data", "user", "id")
    case event["type"]
    when "user.deleted" then User.find_by(gatehouse_sub: sub)&.destroy
    when "user.disabled" then User.find_by(gatehouse_sub: sub)&.sessions&.destroy_all
    when "user.updated"
      user = event.dig("data", "user")
      User.find_by(gatehouse_sub: sub)&.update!(email: user["email"], name: user["name"])
    end
  end

  # Signature by Gatehouse's published keys (JWKS from discovery), iss, aud, iat, the back-channel event, no nonce.
  def verified_logout_token(token)
    issuer = ENV.fetch("GATEHOUSE_ISSUER")
    claims, header = JWT.decode(token, nil, true, algorithms: %w[RS256 ES256], jwks: method(:gatehouse_jwks),
                                iss: issuer, verify_iss: true, aud: ENV.fetch("GATEHOUSE_CLIENT_ID"), verify_aud: true,
                                verify_iat: true)
    raise JWT::DecodeError, "typ is not logout+jwt" unless header["typ"].to_s.casecmp?("logout+jwt")
    raise JWT::DecodeError, "iat too old" if claims["iat"].to_i < Time.now.to_i - REPLAY_WINDOW
    raise JWT::DecodeError, "not a back-channel logout event" unless claims["events"].is_a?(Hash) && claims["events"].key?(LOGOUT_EVENT)
    raise JWT::DecodeError, "a logout token has no nonce" if claims.key?("nonce")
    raise JWT::DecodeError, "neither sub nor sid" unless claims["sub"] || claims["sid"]
    claims
  end

  # Gatehouse's keys, cached; refetched once when a token names a key we have not seen (rotation).
  def gatehouse_jwks(options)
    @@jwks = nil if options[:invalidate]
    @@jwks ||= begin
      config = OpenIDConnect::Discovery::Provider::Config.discover!(ENV.fetch("GATEHOUSE_ISSUER"))
      JSON.parse(Net::HTTP.get(URI(config.jwks_uri.to_s)))
    end
  end
  @@jwks = nil
end
