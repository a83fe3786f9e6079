Rails.application.routes.draw do
  root "home#show"
  get "me", to: "home#me", defaults: { format: :json }
  resource :session, only: %i[new destroy]
  get "session/signed-out", to: "sessions#signed_out", as: :signed_out
  get "session/silent", to: "sessions#silent", as: :silent_sign_in
  # OmniAuth answers POST /login/gatehouse itself; these are the callback and the failure page.
  match "login/:provider/callback", to: "sessions#create", via: %i[get post]
  get "login/failure", to: "sessions#failure"
end
