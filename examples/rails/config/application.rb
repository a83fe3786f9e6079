require_relative "boot"
require "rails"
require "active_record/railtie"
require "action_controller/railtie"
require "action_view/railtie"
require "omniauth/rails_csrf_protection"
require "gatehouse-rails" # Integrations/Rails: `gem install --local` it first (docs/integrations/rails.md)

module Example
  # A small product app shaped like the Rails 8 authentication generator's output: its own users and sessions.
  class Application < Rails::Application
    config.load_defaults 6.1
    config.root = File.expand_path("..", __dir__)
    config.eager_load = true
    config.consider_all_requests_local = false
    config.public_file_server.enabled = true
    config.log_level = :info
    config.logger = ActiveSupport::Logger.new($stdout)
    config.secret_key_base = ENV.fetch("SECRET_KEY_BASE") { SecureRandom.hex(64) }
    config.hosts.clear # tests reach it as 127.0.0.1, localhost and through nginx
    config.session_store :cookie_store, key: "_example_session", same_site: :lax,
                                        secure: ENV.fetch("APP_URL", "").start_with?("https://")
    config.action_controller.default_protect_from_forgery = true
  end
end
