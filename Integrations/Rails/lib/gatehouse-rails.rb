require "gatehouse/rails"
