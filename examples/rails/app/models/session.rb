# One row per signed-in browser, like the Rails 8 authentication generator's Session model.
class Session < ApplicationRecord
  belongs_to :user
end
