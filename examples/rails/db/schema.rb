# Loaded by bin/start when the database is new (the example carries no migrations history).
ActiveRecord::Schema.define(version: 1) do
  create_table :users, if_not_exists: true do |t|
    t.string :gatehouse_sub, null: false, index: { unique: true }
    t.string :email
    t.string :name
    t.timestamps
  end

  create_table :sessions, if_not_exists: true do |t|
    t.references :user, null: false, foreign_key: true
    t.string :ip_address
    t.string :user_agent
    t.text :id_token # kept for RP-initiated logout (id_token_hint)
    t.string :sid, index: true # the Gatehouse session (ID token `sid`) this one came from: back-channel logout ends it
    t.datetime :authenticated_at # the ID token's `auth_time`: step-up wants it recent
    t.timestamps
  end

  # Webhook event ids already applied (gatehouse-rails): a redelivery (at least once) is acknowledged and ignored.
  create_table :gatehouse_events, if_not_exists: true do |t|
    t.string :event_id, null: false, index: { unique: true }
    t.string :event_type, null: false
    t.timestamps
  end
end
