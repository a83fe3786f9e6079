# No Bundler: every gem comes from Debian's packages (ruby-rails 6.1, ruby-omniauth, ruby-omniauth-openid-connect,
# ruby-omniauth-rails-csrf-protection, ruby-sqlite3, puma) and gatehouse-rails is installed beside them with
# `gem install --local`; RubyGems finds them all without a Gemfile.
ENV["RAILS_ENV"] ||= "production"
