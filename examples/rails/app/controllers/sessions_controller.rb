class SessionsController < ApplicationController
  allow_unauthenticated_access
  skip_forgery_protection only: :create # the OIDC callback: OmniAuth checks `state` instead (Apple's form_post too)

  def new
  end

  # One silent try at Gatehouse (prompt=none) before asking the user; a failure comes back to `failure`.
  def silent
    session[:silent_tried] = true
  end

  # The callback: find or create the user by Gatehouse's `sub`, then start the app's own session.
  def create
    auth = request.env.fetch("omniauth.auth")
    user = User.find_or_initialize_by(gatehouse_sub: auth.uid)
    user.update!(email: auth.info.email, name: auth.info.name)
    return_to = after_authentication_path
    reset_session
    start_new_session_for user, id_token: auth.credentials.id_token, claims: Gatehouse::Rails.id_token_claims(auth)
    redirect_to return_to
  end

  # OmniAuth failures: a silent try that needs the user goes to the sign-in page; anything else is shown.
  def failure
    @message = (request.env["omniauth.error.type"] || params[:message]).to_s
    return redirect_to(new_session_path) if %w[login_required interaction_required consent_required].include?(@message)
    render :failure, status: :unauthorized
  end

  # Ends the app's session, then Gatehouse's (RP-initiated logout), which sends the browser back to signed_out.
  def destroy
    id_token = resume_session&.id_token
    terminate_session
    reset_session
    redirect_to Gatehouse::Rails.logout_url(id_token: id_token, post_logout_redirect_uri: "#{ENV.fetch("APP_URL")}/session/signed-out")
  end

  def signed_out
  end
end
