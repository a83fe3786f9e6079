Devise.setup do |config|
  require "devise/orm/active_record"
  config.mailer_sender = "peer@example.com"
  config.secret_key = Rails.application.secret_key_base
  config.case_insensitive_keys = [:email]
  config.strip_whitespace_keys = [:email]
  config.skip_session_storage = [:http_auth]
  config.stretches = 12
  config.sign_out_via = :delete
end
