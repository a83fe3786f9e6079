# Devise's users and Doorkeeper 5.5's tables (its generator's migration without previous_refresh_token).
ActiveRecord::Schema.define(version: 1) do
  create_table :users do |t|
    t.string :email, null: false, default: ""
    t.string :encrypted_password, null: false, default: ""
    t.timestamps null: false
  end
  add_index :users, :email, unique: true

  create_table :oauth_applications do |t|
    t.string :name, null: false
    t.string :uid, null: false
    t.string :secret, null: false
    t.text :redirect_uri, null: false
    t.string :scopes, null: false, default: ""
    t.boolean :confidential, null: false, default: true
    t.timestamps null: false
  end
  add_index :oauth_applications, :uid, unique: true

  create_table :oauth_access_grants do |t|
    t.references :resource_owner, null: false
    t.references :application, null: false
    t.string :token, null: false
    t.integer :expires_in, null: false
    t.text :redirect_uri, null: false
    t.datetime :created_at, null: false
    t.datetime :revoked_at
    t.string :scopes, null: false, default: ""
  end
  add_index :oauth_access_grants, :token, unique: true

  create_table :oauth_access_tokens do |t|
    t.references :resource_owner, index: true
    t.references :application, null: false
    t.string :token, null: false
    t.string :refresh_token
    t.integer :expires_in
    t.datetime :revoked_at
    t.datetime :created_at, null: false
    t.string :scopes
  end
  add_index :oauth_access_tokens, :token, unique: true
  add_index :oauth_access_tokens, :refresh_token, unique: true
end
