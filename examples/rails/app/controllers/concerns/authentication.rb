# The app's own cookie session, in the shape of the Rails 8 authentication generator's concern:
# a signed, HttpOnly `session_id` cookie naming a row of `sessions`.
module Authentication
  extend ActiveSupport::Concern

  included do
    before_action :require_authentication
    helper_method :authenticated?
  end

  class_methods do
    def allow_unauthenticated_access(**options)
      skip_before_action :require_authentication, **options
    end
  end

  private

  def authenticated?
    resume_session.present?
  end

  def require_authentication
    resume_session || request_authentication
  end

  def resume_session
    Current.session ||= (id = cookies.signed[:session_id]) && Session.find_by(id: id)
  end

  # Not signed in here: try a silent sign-in at Gatehouse once (prompt=none), then the sign-in page.
  def request_authentication
    session[:return_to_after_authenticating] = request.fullpath if request.get?
    return head(:unauthorized) if request.format.json?
    redirect_to session[:silent_tried] ? new_session_path : silent_sign_in_path
  end

  def after_authentication_path
    session.delete(:return_to_after_authenticating) || root_path
  end

  # From the ID token OmniAuth verified: `sid` names the Gatehouse session (a back-channel logout for it ends this
  # one) and `auth_time` is when the user last signed in at Gatehouse (step-up asks for a recent one).
  def start_new_session_for(user, id_token:, claims:)
    authenticated_at = claims["auth_time"] && Time.at(claims["auth_time"])
    user.sessions.create!(user_agent: request.user_agent, ip_address: request.remote_ip, id_token: id_token,
                          sid: claims["sid"], authenticated_at: authenticated_at).tap do |row|
      Current.session = row
      cookies.signed.permanent[:session_id] = { value: row.id, httponly: true, same_site: :lax, secure: request.ssl? }
    end
  end

  def terminate_session
    Current.session&.destroy
    cookies.delete(:session_id)
  end
end
