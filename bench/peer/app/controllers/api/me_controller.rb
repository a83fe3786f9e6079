module Api
  # A Bearer-protected resource: the peer of Gatehouse's /oauth/userinfo.
  class MeController < ActionController::API
    before_action :doorkeeper_authorize!

    def show
      user = User.find(doorkeeper_token.resource_owner_id)
      render json: { sub: user.id.to_s, email: user.email }
    end
  end
end
