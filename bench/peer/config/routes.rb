Rails.application.routes.draw do
  devise_for :users, only: :sessions
  # /oauth/token (refresh grant with rotation), /oauth/introspect, /oauth/revoke; no admin UI.
  use_doorkeeper { skip_controllers :applications, :authorized_applications, :authorizations }
  get "/api/me", to: "api/me#show"          # Bearer: the peer of Gatehouse's /oauth/userinfo
  get "/session", to: "who_am_i#show", as: :who_am_i # Devise cookie: the peer of Gatehouse's /native/session
end
