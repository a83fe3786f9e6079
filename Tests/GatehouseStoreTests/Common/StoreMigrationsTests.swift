import GatehouseSQLStore
import GatehouseStore
import Testing

/// One migration list serves both backends: the versions and names are the catalogue's; the
/// backends' texts differ in `SQLSchemaTypes`' words.
@Suite("StoreMigrations")
struct StoreMigrationsTests {
    @Test(arguments: [("sqlite", SQLSchemaTypes.sqlite), ("postgres", SQLSchemaTypes.postgres)])
    func everyVersionOfTheCatalogueInOrder(_ backend: String, _ types: SQLSchemaTypes) {
        let migrations = StoreMigrations.all(types)
        #expect(migrations.map(\.version) == StoreSchema.versions.map(\.number), "\(backend)")
        #expect(migrations.map(\.name) == StoreSchema.versions.map(\.name), "\(backend)")
    }

    @Test func theTypeMapIsWhatDiffers() {
        let users = { (types: SQLSchemaTypes) in StoreMigrations.all(types)[1].sql }
        #expect(users(.sqlite).contains("email TEXT NOT NULL UNIQUE"))
        #expect(users(.sqlite).contains("disabled INTEGER NOT NULL DEFAULT 0"))
        #expect(users(.sqlite).contains(") STRICT;"))
        #expect(users(.postgres).contains("email TEXT COLLATE \"C\" NOT NULL UNIQUE"))
        #expect(users(.postgres).contains("disabled BOOLEAN NOT NULL DEFAULT FALSE"))
        #expect(!users(.postgres).contains("STRICT"))
    }
}
