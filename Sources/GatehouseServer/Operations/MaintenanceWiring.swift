import Foundation
import GatehouseIdentity

extension GatehouseApp {
    /// The background purge and job runner for this process (provider-token revocations run as its job,
    /// under the maintenance lease), configured from `maintenance`, logging each run that removed or did
    /// something and counting rows in `metrics.maintenancePurged`. Call `start()` once the
    /// server listens and `stop()` before closing the database.
    public func makeMaintenance() -> MaintenanceService {
        let log = log
        let counter = metrics.maintenancePurged
        let databaseErrors = metrics.databaseErrors
        return MaintenanceService(stores: .init(database: services.database), settings: configuration.maintenance, clock: services.clock,
            jobs: [providerRevocations.job, outbound.job],
            onReport: { report in
                for job in report.jobs where job.done > 0 {
                    log.info("maintenance job done", [("job", job.name), ("count", String(job.done))])
                }
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
