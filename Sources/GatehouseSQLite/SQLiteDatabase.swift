import GatehouseStore
import CSQLite
