require "rails/engine"

module Gatehouse
  module Rails
    # `mount Gatehouse::Rails::Engine => "/gatehouse"` serves POST /gatehouse/backchannel-logout and
    # POST /gatehouse/webhooks; the engine also installs the OmniAuth strategy at /login/gatehouse.
    class Engine < ::Rails::Engine
      isolate_namespace Gatehouse::Rails
      engine_name "gatehouse"

      initializer "gatehouse.omniauth" do |app|
        PKCE.install
        app.middleware.use(OmniAuth::Builder) { provider :openid_connect, OmniAuthSetup.options }
      end

      initializer "gatehouse.helpers" do
        ActiveSupport.on_load(:action_view) { include Gatehouse::Rails::StepUp::Helper }
      end
    end
  end
end
