import Foundation
import GatehousePostgres
import GatehouseStore
import Testing

/// URL parsing needs no server.
@Suite("PostgreSQL URLs")
struct PostgresConfigurationTests {
    @Test func parsesAFullURL() throws {
        let config = try PostgresConfiguration(
            url: "postgres://gate:s3cret@db.example.test:6543/gatehouse?sslmode=disable&pool_size=8&statement_timeout_ms=250")
        #expect(config.parameters == ["user": "gate", "password": "s3cret", "host": "db.example.test", "port": "6543",
                                      "dbname": "gatehouse", "sslmode": "disable"])
        #expect(config.poolSize == 8)
        #expect(config.statementTimeoutMilliseconds == 250)
    }

    @Test func defaultsAndPostgresqlScheme() throws {
        let config = try PostgresConfiguration(url: "POSTGRESQL://localhost/db")
        #expect(config.parameters == ["host": "localhost", "dbname": "db"])
        #expect(config.poolSize == 4)
        #expect(config.statementTimeoutMilliseconds == 5_000)
    }

    /// Every part is percent-decoded into its own keyword value; nothing is concatenated, so a
    /// password full of conninfo syntax stays one opaque value.
    @Test func decodesWithoutInjection() throws {
        let config = try PostgresConfiguration(
            url: "postgres://us%40er:p%40ss%3Aw%2Fd%20host%3Devil%27@%2Fvar%2Frun%2Fpostgresql/my%20db?application_name=a%26b")
        #expect(config.parameters["user"] == "us@er")
        #expect(config.parameters["password"] == "p@ss:w/d host=evil'")
        #expect(config.parameters["host"] == "/var/run/postgresql")
        #expect(config.parameters["dbname"] == "my db")
        #expect(config.parameters["application_name"] == "a&b")
        #expect(!config.description.contains("p@ss"))
    }

    @Test func ipv6AndHostLists() throws {
        #expect(try PostgresConfiguration(url: "postgres://[::1]:5433/x").parameters == ["host": "::1", "port": "5433", "dbname": "x"])
        let list = try PostgresConfiguration(url: "postgres://a:1,b:2/x").parameters
        #expect(list["host"] == "a,b")
        #expect(list["port"] == "1,2")
        #expect(try PostgresConfiguration(url: "postgres://u@h").parameters == ["user": "u", "host": "h"])
    }

    @Test(arguments: [
        "mysql://localhost/db", "sqlite::memory:", "", "postgres://h:0/db", "postgres://h:port/db",
        "postgres://h/db?pool_size=0", "postgres://h/db?pool_size=x", "postgres://h/db?statement_timeout_ms=-1",
        "postgres://h/db?no_such_option=1", "postgres://h/db?sslmode", "postgres://h/%zz", "postgres://[::1/db",
    ])
    func rejects(_ url: String) async {
        await expectStoreError(.invalidConfiguration) { _ = try PostgresConfiguration(url: url) }
    }
}
