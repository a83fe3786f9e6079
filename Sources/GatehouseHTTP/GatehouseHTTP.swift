// GatehouseHTTP
