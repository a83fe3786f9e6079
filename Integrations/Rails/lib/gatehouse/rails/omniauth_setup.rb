module Gatehouse
  module Rails
    # The OmniAuth strategy (omniauth_openid_connect) pointed at Gatehouse: discovery, PKCE, client_secret_basic, and
    # per request the hints Gatehouse understands (`prompt=none`, `provider=`, `max_age`, `acr_values`).
    module OmniAuthSetup
      PATH_PREFIX = "/login".freeze # OmniAuth's default /auth is where Gatehouse lives in the one-origin shape
      REQUEST_PATH = "#{PATH_PREFIX}/gatehouse".freeze
      CALLBACK_PATH = "#{REQUEST_PATH}/callback".freeze
      PROVIDERS = %w[apple google github].freeze

      def self.options
        { name: :gatehouse, path_prefix: PATH_PREFIX, discovery: true, pkce: true, client_auth_method: :basic,
          setup: method(:setup) }
      end

      # Runs before both phases: the configuration is read per request, so it may be set anywhere during boot.
      def self.setup(env)
        config = Gatehouse::Rails.config
        configure_http
        params = Rack::Request.new(env).params
        options = env["omniauth.strategy"].options
        options[:issuer] = config.issuer
        options[:scope] = config.scope
        options[:client_options] = { identifier: config.client_id, secret: config.client_secret,
                                     redirect_uri: config.redirect_uri }.compact
        options[:prompt] = :none if params["prompt"] == "none"
        step_up = StepUp.authorize_params(params)
        options[:acr_values] = step_up[:acr_values] if step_up[:acr_values]
        extra = {}
        extra[:provider] = params["provider"] if PROVIDERS.include?(params["provider"])
        extra[:max_age] = step_up[:max_age] if step_up[:max_age]
        options[:extra_authorize_params] = extra
      end

      # Discovery over plain http only for a loopback issuer (demo and tests), and a private CA when one is configured.
      def self.configure_http
        config = Gatehouse::Rails.config
        SWD.url_builder = URI::HTTP if config.issuer.to_s.start_with?("http://")
        return unless config.ca_file && @ca_file != config.ca_file
        @ca_file = config.ca_file
        OpenIDConnect.http_config { |http| http.ssl_config.add_trust_ca(config.ca_file) }
      end
    end
  end
end
