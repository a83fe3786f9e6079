Doorkeeper.configure do
  orm :active_record
  # Only the refresh grant (and the client credentials used to authenticate it) is exercised; tokens are seeded.
  grant_flows %w[authorization_code client_credentials]
  resource_owner_authenticator { current_user || warden.authenticate!(scope: :user) }
  access_token_expires_in 2.hours
  use_refresh_token
  # Stored as SHA-256, as Gatehouse stores its tokens.
  hash_token_secrets
  # No previous_refresh_token column: the used refresh token is revoked in the same transaction that issues the
  # new pair (strict rotation, as in Gatehouse), not when the new access token is first used.
  default_scopes :read
end
