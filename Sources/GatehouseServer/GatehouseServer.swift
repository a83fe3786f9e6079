// GatehouseServer
