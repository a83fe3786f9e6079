class HomeController < ApplicationController
  def show
    @user = Current.user
  end

  # The app's JSON view of who is signed in (401 without a session).
  def me
    user = Current.user
    render json: { id: user.id, sub: user.gatehouse_sub, email: user.email, name: user.name,
                   session_id: Current.session.id }
  end
end
