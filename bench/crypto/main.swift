import GatehouseCrypto
print("crypto bench")
