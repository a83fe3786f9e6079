module Gatehouse
  module Rails
    VERSION = "0.1.0".freeze
  end
end
