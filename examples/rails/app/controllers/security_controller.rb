# A page that wants a recent sign-in: older than STEP_UP_MAX_AGE seconds (default 5 minutes), the user confirms at
# Gatehouse first (max_age=0, and acr_values when STEP_UP_ACR_VALUES names a stronger method, such as
# urn:gatehouse:acr:mfa for a password and an authenticator-app code). A sign-in without one of those acr values
# steps up too.
class SecurityController < ApplicationController
  def show
    max_age = Integer(ENV.fetch("STEP_UP_MAX_AGE", "300"), 10)
    acr_values = ENV["STEP_UP_ACR_VALUES"].to_s.split
    @claims = Current.session.id_token_claims
    signed_in_at = Current.session.authenticated_at
    recent = signed_in_at && signed_in_at >= max_age.seconds.ago
    return if recent && (acr_values.empty? || Gatehouse::Rails::StepUp.acr?(@claims, acr_values))
    session[:return_to_after_authenticating] = request.fullpath
    render :step_up
  end
end
