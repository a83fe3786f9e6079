# One row per signed-in browser, like the Rails 8 authentication generator's Session model.
class Session < ApplicationRecord
  belongs_to :user

  # The claims of the ID token this session started with (verified by the OmniAuth strategy at the callback, so
  # only read here): `amr`, `acr`, `auth_time`.
  def id_token_claims
    payload = id_token.to_s.split(".")[1]
    payload ? JSON.parse(Base64.urlsafe_decode64(payload + "=" * (-payload.length % 4))) : {}
  rescue ArgumentError, JSON::ParserError
    {}
  end
end
