@testable import GatehouseSQLStore
import Testing

/// What PostgreSQL's `pg_trgm` index is offered of a query holding an `@`.
@Suite("Email local part through the @")
struct LocalPartThroughAtTests {
    @Test func theLocalPartAndTheAtWhenBothSidesHoldSomething() {
        #expect("jane.doe@example.com".localPartThroughAt == "jane.doe@")
        #expect("u333334@s".localPartThroughAt == "u333334@")
        #expect("éri@x".localPartThroughAt == "éri@", "three scalars before the @")
        #expect("a@b@c".localPartThroughAt == nil, "under three characters before the first @")
        #expect("abc@".localPartThroughAt == nil, "nothing after it: the query itself")
        #expect("@example.com".localPartThroughAt == nil)
        #expect("example.com".localPartThroughAt == nil)
    }
}
