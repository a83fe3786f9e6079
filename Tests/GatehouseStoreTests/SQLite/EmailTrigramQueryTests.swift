@testable import GatehouseSQLStore
import Testing

/// Which trigrams the SQLite account search samples and which stretches of the query it asks FTS5 for.
@Suite("Email trigram query")
struct EmailTrigramQueryTests {
    @Test func underThreeCharactersThereIsNoTrigram() {
        #expect(EmailTrigramQuery("ab") == nil)
        #expect(EmailTrigramQuery("") == nil)
        #expect(EmailTrigramQuery("Éa") == nil)
        #expect(EmailTrigramQuery("abc")?.windows == [.init(start: 0, trigram: "abc")])
    }

    @Test func everyThirdWindowAndTheLastCoverEveryCharacter() throws {
        let query = try #require(EmailTrigramQuery("U333334@Scale.example"))
        #expect(query.text == "u333334@scale.example")
        #expect(query.windows.map(\.start) == [0, 3, 6, 9, 12, 15, 18])
        #expect(query.windows.map(\.trigram) == ["u33", "333", "4@s", "cal", "e.e", "xam", "ple"])
        let eight = try #require(EmailTrigramQuery("u333334@"))
        #expect(eight.windows.map(\.trigram) == ["u33", "333", "34@"], "the last window overlaps the one before")
        let repeated = try #require(EmailTrigramQuery("aaaaaaa"))
        #expect(repeated.sampledTrigrams == ["aaa"], "each trigram is counted once")
    }

    @Test func windowsAreUnicodeScalarsAsTheTokenizerCountsThem() throws {
        let query = try #require(EmailTrigramQuery("ÉRIKA@"))
        #expect(query.windows.map(\.trigram) == ["éri", "ka@"])
        let combining = try #require(EmailTrigramQuery("e\u{301}ab"))  // e + combining acute: two scalars
        #expect(combining.windows.map(\.trigram) == ["e\u{301}a", "\u{301}ab"])
    }

    @Test func commonWindowsAreLeftOutOfTheQuestion() throws {
        let query = try #require(EmailTrigramQuery("u333334@scale.example"))
        let common = EmailTrigramQuery.sampleRows
        var counts = ["u33": 1, "333": 1, "4@s": 26]
        for trigram in ["cal", "e.e", "xam", "ple"] { counts[trigram] = common }
        #expect(query.expression(counts: counts) == "\"u333334@s\"", "the domain's lists are not read")
        counts["333"] = common
        #expect(query.expression(counts: counts) == "\"u33\" AND \"4@s\"", "a common window splits the stretch")
        #expect(query.expression(counts: counts.mapValues { _ in 0 }) == "\"u333334@scale.example\"")
        #expect(query.expression(counts: counts.mapValues { _ in common }) == nil)
    }

    @Test func theThresholdIsAnEighthOfTheSample() {
        let eighth = EmailTrigramQuery.sampleRows / 8
        #expect(!EmailTrigramQuery.isCommon(eighth))
        #expect(EmailTrigramQuery.isCommon(eighth + 1))
        #expect(EmailTrigramQuery.commonCount == eighth + 1, "the sample counts no further")
    }

    @Test func quotesAreDoubledInsideThePhrase() throws {
        let query = try #require(EmailTrigramQuery("a\"b OR c"))
        #expect(query.expression(counts: [:]) == "\"a\"\"b or c\"")
    }

    @Test func aLongQuerySamplesAtMostSixteenWindows() throws {
        let query = try #require(EmailTrigramQuery(String(repeating: "abcdefghij", count: 10)))
        #expect(query.windows.count == EmailTrigramQuery.maximumWindows)
        #expect(query.windows.last?.start == 45)
    }
}
