# The Devise session's "who am I" as JSON (401 without a session), like Gatehouse's GET /native/session.
class WhoAmIController < ApplicationController
  before_action :authenticate_user!

  def show
    render json: { signed_in: true, user: { id: current_user.id, email: current_user.email } }
  end
end
