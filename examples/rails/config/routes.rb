Rails.application.routes.draw do
  root "home#show"
  get "me", to: "home#me", defaults: { format: :json }
  resource :session, only: %i[new destroy]
  get "session/signed-out", to: "sessions#signed_out", as: :signed_out
  get "session/silent", to: "sessions#silent", as: :silent_sign_in
  # OmniAuth answers POST /login/gatehouse itself; these are the callback and the failure page.
  match "login/:provider/callback", to: "sessions#create", via: %i[get post]
  get "login/failure", to: "sessions#failure"
  # Gatehouse tells the app (docs/events.md): OpenID Connect back-channel logout and signed webhooks.
  post "gatehouse/backchannel-logout", to: "gatehouse_events#backchannel_logout"
  post "gatehouse/webhooks", to: "gatehouse_events#webhook"
end
