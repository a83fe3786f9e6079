require "json"
require "openssl"
require "active_support/security_utils"

module Gatehouse
  module Rails
    # A verified Gatehouse webhook delivery: `Gatehouse-Signature` holds `v1=` HMAC-SHA256 over "timestamp.body" (one
    # or more, comma-separated, during a secret rotation) and `Gatehouse-Timestamp` is within the tolerance of now.
    module Webhook
      # A delivery that is not Gatehouse's (401), or not an event (400).
      class Unauthorized < StandardError; end
      class Malformed < StandardError; end

      # The event Hash (`id`, `type`, `data`, ...) of a delivery whose signature and timestamp check out.
      def self.verify(body:, timestamp:, signature:, config: Gatehouse::Rails.config, now: Time.now.to_i)
        secret = config.webhook_secret.to_s
        raise Unauthorized, "no webhook secret configured" if secret.empty?
        timestamp = timestamp.to_s
        raise Unauthorized, "timestamp" unless timestamp.match?(/\A\d{1,12}\z/) && (now - timestamp.to_i).abs <= config.webhook_tolerance
        expected = "v1=" + OpenSSL::HMAC.hexdigest("SHA256", secret, "#{timestamp}.#{body}")
        signatures = signature.to_s.split(",").map(&:strip)
        raise Unauthorized, "signature" unless signatures.any? { |s| ActiveSupport::SecurityUtils.secure_compare(s, expected) }
        event = JSON.parse(body)
        raise Malformed, "not an event" unless event.is_a?(Hash) && event["id"].is_a?(String) && event["type"].is_a?(String)
        event
      rescue JSON::ParserError => e
        raise Malformed, e.message
      end
    end
  end
end
