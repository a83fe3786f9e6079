# The gem's verification without a server: `ruby -Ilib test/verification_test.rb` (e2e/rails/test_gem.py runs it).
require "minitest/autorun"
require "openssl"
require "action_controller/railtie"
require "gatehouse-rails"

class WebhookTest < Minitest::Test
  SECRET = "webhook-secret-0123456789abcdefghijkl".freeze

  def setup
    @config = Gatehouse::Rails::Configuration.new
    @config.webhook_secret = SECRET
    @body = JSON.generate(id: "evt_1", type: "user.deleted", data: { user: { id: "u1" } })
    @now = 1_700_000_000
  end

  def signature(timestamp, body = @body, secret = SECRET)
    "v1=" + OpenSSL::HMAC.hexdigest("SHA256", secret, "#{timestamp}.#{body}")
  end

  def verify(timestamp: @now.to_s, signature: signature(@now), body: @body)
    Gatehouse::Rails::Webhook.verify(body: body, timestamp: timestamp, signature: signature, config: @config, now: @now)
  end

  def test_a_signed_fresh_delivery_is_the_event
    assert_equal "evt_1", verify["id"]
    # During a secret rotation Gatehouse sends one signature per secret: any one may match.
    assert_equal "user.deleted", verify(signature: "v1=#{"0" * 64}, #{signature(@now)}")["type"]
  end

  def test_a_wrong_signature_or_secret_is_refused
    assert_raises(Gatehouse::Rails::Webhook::Unauthorized) { verify(signature: signature(@now, @body, "another-secret")) }
    assert_raises(Gatehouse::Rails::Webhook::Unauthorized) { verify(body: @body.sub("u1", "u2")) }
    assert_raises(Gatehouse::Rails::Webhook::Unauthorized) { verify(signature: "") }
  end

  def test_a_timestamp_outside_the_window_is_refused_even_when_signed
    old = (@now - 301).to_s
    assert_raises(Gatehouse::Rails::Webhook::Unauthorized) { verify(timestamp: old, signature: signature(old)) }
    future = (@now + 301).to_s
    assert_raises(Gatehouse::Rails::Webhook::Unauthorized) { verify(timestamp: future, signature: signature(future)) }
    edge = (@now - 300).to_s
    assert_equal "evt_1", verify(timestamp: edge, signature: signature(edge))["id"]
    assert_raises(Gatehouse::Rails::Webhook::Unauthorized) { verify(timestamp: "12a", signature: signature("12a")) }
  end

  def test_no_secret_configured_refuses_everything
    @config.webhook_secret = nil
    assert_raises(Gatehouse::Rails::Webhook::Unauthorized) { verify }
  end

  def test_a_signed_body_that_is_not_an_event_is_malformed
    body = "[1,2]"
    assert_raises(Gatehouse::Rails::Webhook::Malformed) { verify(body: body, signature: signature(@now, body)) }
  end
end

class LogoutTokenTest < Minitest::Test
  ISSUER = "https://app.example/auth".freeze

  def setup
    @key = OpenSSL::PKey::EC.generate("prime256v1")
    @jwk = JWT::JWK.new(@key, kid: "k1")
    @config = Gatehouse::Rails::Configuration.new
    @config.issuer, @config.client_id = ISSUER, "example-rails"
    @now = Time.now.to_i
  end

  def token(typ: "logout+jwt", key: @jwk, **claims)
    payload = { iss: ISSUER, aud: "example-rails", iat: @now, jti: "j1", sub: "u1", sid: "s1",
                events: { Gatehouse::Rails::LogoutToken::EVENT => {} } }.merge(claims).compact
    JWT.encode(payload, key.keypair, "ES256", kid: key.kid, typ: typ)
  end

  def verify(token)
    Gatehouse::Rails::LogoutToken.verify(token, config: @config, now: @now, jwks: ->(_) { { keys: [@jwk.export] } })
  end

  def test_a_valid_token_names_the_user_and_session
    logout = verify(token)
    assert_equal ["u1", "s1"], [logout.sub, logout.sid]
  end

  def test_each_check_refuses
    other = JWT::JWK.new(OpenSSL::PKey::EC.generate("prime256v1"), kid: "k1")
    [token(iss: "https://evil.example"), token(aud: "another-app"), token(typ: "JWT"), token(iat: @now - 301),
     token(events: { "x" => {} }), token(nonce: "n"), token(sub: nil, sid: nil), token(key: other), "not.a.jwt"].each do |bad|
      assert_raises(Gatehouse::Rails::LogoutToken::Invalid) { verify(bad) }
    end
  end
end

class StepUpTest < Minitest::Test
  def test_max_age_and_acr_values_pass_through_and_nothing_else
    assert_equal({ max_age: 0, acr_values: "urn:example:mfa phr" },
                 Gatehouse::Rails::StepUp.authorize_params("max_age" => "0", "acr_values" => "urn:example:mfa phr"))
    assert_equal({}, Gatehouse::Rails::StepUp.authorize_params("max_age" => "-1", "acr_values" => "a\"b"))
    assert_equal({}, Gatehouse::Rails::StepUp.authorize_params("max_age" => "5s", "acr_values" => " lead"))
  end

  def test_freshness_and_acr_come_from_the_id_token
    now = 1_700_000_000
    assert Gatehouse::Rails::StepUp.fresh?({ "auth_time" => now - 60 }, max_age: 60, now: now)
    refute Gatehouse::Rails::StepUp.fresh?({ "auth_time" => now - 61 }, max_age: 60, now: now)
    refute Gatehouse::Rails::StepUp.fresh?({}, max_age: 60, now: now)
    assert Gatehouse::Rails::StepUp.acr?({ "acr" => "urn:example:mfa" }, %w[urn:example:mfa])
    refute Gatehouse::Rails::StepUp.acr?({ "acr" => "pwd" }, %w[urn:example:mfa])
  end

  # The strategy's authorize URL carries what the sign-in form asked for: max_age, acr_values, the provider hint.
  def test_the_authorize_url_carries_the_step_up_parameters
    Gatehouse::Rails.config.issuer = "https://id.example"
    Gatehouse::Rails.config.client_id, Gatehouse::Rails.config.client_secret = "example-rails", "secret"
    Gatehouse::Rails::PKCE.install
    strategy = OmniAuth::Strategies::OpenIDConnect.new(->(_) { [200, {}, []] }, Gatehouse::Rails::OmniAuthSetup.options)
    env = Rack::MockRequest.env_for("/login/gatehouse", method: "POST",
                                    params: { "max_age" => "0", "acr_values" => "urn:example:mfa", "provider" => "google" })
    env["rack.session"] = {}
    env["omniauth.strategy"] = strategy
    strategy.instance_variable_set(:@env, env)
    Gatehouse::Rails::OmniAuthSetup.setup(env)
    strategy.options[:discovery] = false
    strategy.options[:client_options][:authorization_endpoint] = "https://id.example/oauth/authorize"
    strategy.options[:client_options][:redirect_uri] = "https://app.example/login/gatehouse/callback"
    query = URI.decode_www_form(URI(strategy.authorize_uri).query).to_h
    assert_equal ["0", "urn:example:mfa", "google", "S256", "example-rails"],
                 query.values_at("max_age", "acr_values", "provider", "code_challenge_method", "client_id")
  end
end
