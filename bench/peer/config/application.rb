require_relative "boot"
require "rails"
require "active_record/railtie"
require "action_controller/railtie"
require "action_view/railtie"
require "action_mailer/railtie"
require "devise"
require "doorkeeper"

module Peer
  # The benchmark peer: what a Rails shop would stand up instead of Gatehouse — Devise for the browser session,
  # Doorkeeper for OAuth (Bearer resource calls, introspection, refresh with rotation), SQLite, production mode.
  class Application < Rails::Application
    config.load_defaults 6.1
    config.root = File.expand_path("..", __dir__)
    config.eager_load = true
    config.cache_classes = true
    config.consider_all_requests_local = false
    config.public_file_server.enabled = false
    # Quiet logs, as Gatehouse runs with access_log off in the same benchmark.
    config.log_level = :warn
    config.logger = ActiveSupport::Logger.new($stdout)
    config.secret_key_base = ENV.fetch("SECRET_KEY_BASE") { SecureRandom.hex(64) }
    config.hosts.clear
    config.session_store :cookie_store, key: "_peer_session", same_site: :lax
    config.action_controller.default_protect_from_forgery = true
    config.action_mailer.default_url_options = { host: "127.0.0.1" }
  end
end
