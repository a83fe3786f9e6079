module Gatehouse
  module Rails
    # What Gatehouse tells the app without a browser: back-channel logout tokens and signed webhooks. Both are
    # server-to-server POSTs (no cookies, no CSRF token), authenticated by signature instead.
    class EventsController < ::ActionController::Base
      skip_forgery_protection
      before_action { response.headers["Cache-Control"] = "no-store" }

      # OpenID Connect Back-Channel Logout 1.0 §2.6: verify the logout token, then the app's `on_logout` hooks.
      def backchannel_logout
        token = LogoutToken.verify(params.require(:logout_token))
        Gatehouse::Rails.config.run_hooks(:logout, token)
        head :ok
      rescue LogoutToken::Invalid, ActionController::ParameterMissing => e
        logger.info("gatehouse: back-channel logout refused: #{e.message}")
        render json: { error: "invalid_request" }, status: :bad_request
      end

      # A verified webhook is applied once per event id: the id is recorded in the same transaction as the hooks' work,
      # so a hook that fails rolls both back and Gatehouse's redelivery tries again.
      def webhook
        event = Webhook.verify(body: request.raw_post, timestamp: request.headers["Gatehouse-Timestamp"],
                               signature: request.headers["Gatehouse-Signature"])
        Event.transaction do
          Event.create!(event_id: event["id"], event_type: event["type"])
          Gatehouse::Rails.config.run_hooks(event["type"], event)
        end
        head :ok
      rescue ActiveRecord::RecordNotUnique
        head :ok # a redelivery of an event already applied: acknowledged, nothing changes
      rescue Webhook::Unauthorized => e
        logger.info("gatehouse: webhook refused: #{e.message}")
        head :unauthorized
      rescue Webhook::Malformed
        head :bad_request
      end
    end
  end
end
