# Gatehouse as the app's OpenID Connect provider (gatehouse-rails): the issuer, client id and secret come from
# GATEHOUSE_ISSUER, GATEHOUSE_CLIENT_ID and GATEHOUSE_CLIENT_SECRET, the webhook secret from GATEHOUSE_WEBHOOK_SECRET.
# What the app decides is what happens to its own users and sessions when Gatehouse tells it something.
Gatehouse::Rails.configure do |config|
  config.redirect_uri = "#{ENV.fetch("APP_URL")}/login/gatehouse/callback"

  # Back-channel logout: end the app's sessions that came from the Gatehouse session `sid` (or all of `sub`'s).
  config.on_logout do |logout|
    sessions = logout.sid ? Session.where(sid: logout.sid) : Session.all
    sessions = sessions.joins(:user).where(users: { gatehouse_sub: logout.sub }) if logout.sub
    sessions.destroy_all
  end

  config.on_user_deleted { |user| User.find_by(gatehouse_sub: user["id"])&.destroy }
  config.on_user_disabled { |user| User.find_by(gatehouse_sub: user["id"])&.sessions&.destroy_all }
  config.on_user_updated { |user| User.find_by(gatehouse_sub: user["id"])&.update!(email: user["email"], name: user["name"]) }
end
