require_relative "lib/gatehouse/rails/version"

Gem::Specification.new do |spec|
  spec.name = "gatehouse-rails"
  spec.version = Gatehouse::Rails::VERSION
  spec.summary = "Sign a Rails app in through Gatehouse: OmniAuth set-up, back-channel logout, verified webhooks, step-up."
  spec.description = "Configures omniauth_openid_connect from GATEHOUSE_ISSUER and the client's credentials, mounts " \
                     "Gatehouse's back-channel logout and webhook endpoints with their verification, and calls the " \
                     "app's hooks (on_logout, on_user_deleted, ...)."
  spec.authors = ["Gatehouse contributors"]
  spec.license = "Apache-2.0"
  spec.homepage = "https://gatehouse.dev/docs/integrations/rails"
  spec.required_ruby_version = ">= 2.7"
  spec.files = Dir["lib/**/*.rb", "app/**/*.rb", "config/**/*.rb", "README.md"]
  spec.require_paths = ["lib"]
  # Only gems Debian packages (ruby-omniauth, ruby-openid-connect, ruby-jwt, ruby-rails), so `gem install --local`
  # resolves against apt's packages. The OmniAuth strategy itself is `omniauth_openid_connect` upstream and
  # `gitlab-omniauth-openid-connect` in Debian (both `require "omniauth_openid_connect"`): the app names the one it uses.
  spec.add_runtime_dependency "omniauth", ">= 1.9"
  spec.add_runtime_dependency "openid_connect", ">= 1.1"
  spec.add_runtime_dependency "jwt", ">= 2.2"
  spec.add_runtime_dependency "railties", ">= 6.1"
end
