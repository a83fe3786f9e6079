# The app's own users, keyed by Gatehouse's stable `sub` (never by email: emails change and can be reused).
class User < ApplicationRecord
  has_many :sessions, dependent: :destroy
end
