import GatehouseServer
print("gatehouse")
