# No Bundler: Rails 6.1, Devise, Doorkeeper 5.5, sqlite3 and puma all come from Debian's packages
# (ruby-rails, ruby-devise, ruby-doorkeeper, ruby-sqlite3, puma), which RubyGems finds without a Gemfile.
ENV["RAILS_ENV"] ||= "production"
