import Foundation
import GatehouseIdentity

extension GatehouseApp {
    /// The background purge for this process, configured from `maintenance`, logging each run
    /// that removed something and counting rows in `maintenancePurged`. Call `start()` once the
    /// server listens and `stop()` before closing the database.
    public func makeMaintenance() -> MaintenanceService {
        let log = log
        let counter = maintenancePurged
        let databaseErrors = databaseErrors
        return MaintenanceService(database: services.database, settings: configuration.maintenance, clock: services.clock,
            onReport: { report in
                for entry in report.purged where entry.rows > 0 { counter.increment([entry.table], by: Double(entry.rows)) }
                // A quiet run is the usual case; logging it every minute would only be noise.
                guard report.total > 0 else { return }
                log.info("maintenance purged expired rows",
                         report.purged.filter { $0.rows > 0 }.map { ($0.table, String($0.rows)) })
            },
            onError: { error in
                databaseErrors.increment(["maintenance"])
                log.error("maintenance run failed", [("error", String(describing: error))])
            })
    }
}
