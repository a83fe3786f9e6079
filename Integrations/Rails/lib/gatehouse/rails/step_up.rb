module Gatehouse
  module Rails
    # Step-up: ask Gatehouse for a fresh sign-in (`max_age`) or a stronger one (`acr_values`), then check what the new
    # ID token says. The sign-in form posts these to the strategy, which passes them on to /oauth/authorize.
    module StepUp
      ACR_VALUES = /\A[\x21\x23-\x5B\x5D-\x7E]+( [\x21\x23-\x5B\x5D-\x7E]+)*\z/.freeze # space-separated tokens

      # The authorize parameters a sign-in request may carry: `max_age` (a whole number of seconds) and `acr_values`.
      def self.authorize_params(params)
        result = {}
        max_age = params["max_age"].to_s
        result[:max_age] = Integer(max_age, 10) if max_age.match?(/\A\d{1,9}\z/)
        acr = params["acr_values"].to_s
        result[:acr_values] = acr if acr.match?(ACR_VALUES) && acr.length <= 512
        result
      end

      # True when the ID token's `auth_time` is at most `max_age` seconds old.
      def self.fresh?(claims, max_age:, now: Time.now.to_i)
        auth_time = claims["auth_time"]
        auth_time.is_a?(Integer) && now - auth_time <= max_age
      end

      # True when the ID token's `acr` is one of `accepted`.
      def self.acr?(claims, accepted)
        Array(accepted).map(&:to_s).include?(claims["acr"].to_s)
      end

      # For views: a button that signs in again at Gatehouse with `max_age`/`acr_values` (a POST, as OmniAuth 2 wants).
      module Helper
        def gatehouse_step_up_button(label, max_age: nil, acr_values: nil, **options)
          params = { max_age: max_age, acr_values: acr_values && Array(acr_values).join(" ") }.compact
          button_to(label, Gatehouse::Rails::OmniAuthSetup::REQUEST_PATH, params: params, data: { turbo: false }, **options)
        end
      end
    end
  end
end
