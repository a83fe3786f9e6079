Gatehouse::Rails::Engine.routes.draw do
  post "backchannel-logout", to: "events#backchannel_logout", as: :backchannel_logout
  post "webhooks", to: "events#webhook", as: :webhooks
end
