Rails.application.routes.draw do
  root "home#show"
  get "me", to: "home#me", defaults: { format: :json }
  resource :session, only: %i[new destroy]
  get "session/signed-out", to: "sessions#signed_out", as: :signed_out
  get "session/silent", to: "sessions#silent", as: :silent_sign_in
  # The gem's OmniAuth strategy answers POST /login/gatehouse itself; these are the callback and the failure page.
  match "login/:provider/callback", to: "sessions#create", via: %i[get post]
  get "login/failure", to: "sessions#failure"
  # Gatehouse tells the app (docs/events.md): POST /gatehouse/backchannel-logout and POST /gatehouse/webhooks.
  mount Gatehouse::Rails::Engine => "/gatehouse"
  # A page that wants a recent sign-in (step-up with max_age).
  get "account/security", to: "security#show", as: :security
end
