module Gatehouse
  module Rails
    # A webhook event already applied: the app's `gatehouse_events` table (`event_id` unique, `event_type`).
    class Event < ::ActiveRecord::Base
      self.table_name = "gatehouse_events"
    end
  end
end
