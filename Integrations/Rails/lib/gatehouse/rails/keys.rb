require "json"
require "net/http"
require "openid_connect"

module Gatehouse
  module Rails
    # Gatehouse's discovery document and signing keys (JWKS), cached per process; the keys are fetched again once
    # when a token names a key not seen yet (rotation).
    module Keys
      @lock = Mutex.new
      @jwks = nil

      class << self
        def discovery(issuer)
          OmniAuthSetup.configure_http
          OpenIDConnect::Discovery::Provider::Config.discover!(issuer)
        end

        # The `jwks:` loader ruby-jwt calls (`invalidate: true` when no cached key matches the token's `kid`).
        def loader(issuer)
          lambda do |options|
            @lock.synchronize do
              @jwks = nil if options[:invalidate]
              @jwks ||= fetch(discovery(issuer).jwks_uri.to_s)
            end
          end
        end

        def reset!
          @lock.synchronize { @jwks = nil }
        end

        private

        def fetch(url)
          uri = URI(url)
          http = Net::HTTP.new(uri.host, uri.port)
          http.use_ssl = uri.scheme == "https"
          http.ca_file = Gatehouse::Rails.config.ca_file if http.use_ssl? && Gatehouse::Rails.config.ca_file
          http.open_timeout = http.read_timeout = 5
          response = http.request(Net::HTTP::Get.new(uri))
          raise JWT::DecodeError, "JWKS: HTTP #{response.code}" unless response.is_a?(Net::HTTPSuccess)
          JSON.parse(response.body)
        end
      end
    end
  end
end
