# A webhook event already applied (deduplication by Gatehouse's event id).
class GatehouseEvent < ApplicationRecord
end
