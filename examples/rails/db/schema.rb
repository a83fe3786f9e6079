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
    t.timestamps
  end
end
