module Gatehouse
  module Rails
    # Where Gatehouse is, who the app is, and the app's hooks. Defaults come from the environment.
    class Configuration
      # Gatehouse's public URL: https://app.example/auth (one origin) or https://id.example (its own host).
      attr_accessor :issuer
      attr_accessor :client_id, :client_secret
      # The callback Gatehouse redirects to; `nil` lets OmniAuth derive it from the request.
      attr_accessor :redirect_uri
      attr_accessor :scope
      # The shared secret of the webhook subscription, and how far a webhook's timestamp may be from now (seconds).
      attr_accessor :webhook_secret, :webhook_tolerance
      # How old a logout token's `iat` may be (seconds).
      attr_accessor :logout_token_max_age
      # A PEM file of extra CAs to trust for discovery and keys (a private CA); `nil` for the system's.
      attr_accessor :ca_file

      def initialize
        @issuer = ENV["GATEHOUSE_ISSUER"]
        @client_id = ENV["GATEHOUSE_CLIENT_ID"]
        @client_secret = ENV["GATEHOUSE_CLIENT_SECRET"]
        @redirect_uri = ENV["APP_URL"] && "#{ENV["APP_URL"]}#{OmniAuthSetup::CALLBACK_PATH}"
        @scope = %i[openid email profile]
        @webhook_secret = ENV["GATEHOUSE_WEBHOOK_SECRET"]
        @webhook_tolerance = 300
        @logout_token_max_age = 300
        @ca_file = ENV["GATEHOUSE_CA_FILE"]
        @hooks = Hash.new { |hash, key| hash[key] = [] }
      end

      # A back-channel logout: the block gets a `LogoutToken` (`sub`, `sid`) and ends the app's matching sessions.
      def on_logout(&block)
        @hooks[:logout] << block
      end

      # A webhook event of `type` ("user.deleted", ...); the block gets the event Hash (`id`, `type`, `data`).
      def on_event(type, &block)
        @hooks[type.to_s] << block
      end

      # `user.deleted`: the block gets the event's `data.user` Hash (its `id` is the user's `sub`) and the event.
      def on_user_deleted(&block)
        on_event("user.deleted") { |event| block.call(event.dig("data", "user") || {}, event) }
      end

      def on_user_disabled(&block)
        on_event("user.disabled") { |event| block.call(event.dig("data", "user") || {}, event) }
      end

      def on_user_updated(&block)
        on_event("user.updated") { |event| block.call(event.dig("data", "user") || {}, event) }
      end

      # Runs the hooks registered for `name` (a Symbol for logout, an event type otherwise).
      def run_hooks(name, *arguments)
        @hooks.fetch(name, []).each { |hook| hook.call(*arguments) }
      end
    end
  end
end
