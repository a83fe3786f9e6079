# A page that wants a recent sign-in: older than STEP_UP_MAX_AGE seconds (default 5 minutes), the user confirms at
# Gatehouse first (max_age=0, and acr_values when STEP_UP_ACR_VALUES names a stronger method).
class SecurityController < ApplicationController
  def show
    max_age = Integer(ENV.fetch("STEP_UP_MAX_AGE", "300"), 10)
    signed_in_at = Current.session.authenticated_at
    return if signed_in_at && signed_in_at >= max_age.seconds.ago
    session[:return_to_after_authenticating] = request.fullpath
    render :step_up
  end
end
