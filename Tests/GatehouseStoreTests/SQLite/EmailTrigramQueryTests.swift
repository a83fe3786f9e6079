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

    @Test func commonWindowsAreLeftOutOfTheQuestions() throws {
        let query = try #require(EmailTrigramQuery("u333334@scale.example"))
        let common = EmailTrigramQuery.commonCount
        var counts = ["u33": 3, "333": 1, "4@s": 25]
        for trigram in ["cal", "e.e", "xam", "ple"] { counts[trigram] = common }
        #expect(query.questions(counts: counts) == ["\"u33333\"", "\"u333334@s\""],
                "the two rarest windows first (adjacent: one phrase), then every uncommon one; the domain's lists never")
        counts["333"] = common
        #expect(query.questions(counts: counts) == ["\"u33\" AND \"4@s\""], "a common window splits the stretch")
        #expect(query.questions(counts: counts.mapValues { _ in common }) == [], "nothing cheap to ask")
        let all = query.questions(counts: counts.mapValues { _ in 0 })
        #expect(all == ["\"u33333\"", "\"u333334@scale.example\""], "ties go to the earlier windows")
    }

    @Test func theRarestWindowsMayBeApart() throws {
        let query = try #require(EmailTrigramQuery("jane.doe@example.com"))
        #expect(query.windows.map(\.trigram) == ["jan", "e.d", "oe@", "exa", "mpl", "e.c", "com"])
        let domain = Dictionary(uniqueKeysWithValues: ["exa", "mpl", "e.c", "com"].map { ($0, EmailTrigramQuery.commonCount) })
        let counts = domain.merging(["jan": 9, "e.d": 2, "oe@": 12]) { $1 }
        #expect(query.questions(counts: counts) == ["\"jane.d\"", "\"jane.doe@\""])
        let apart = domain.merging(["jan": 9, "e.d": 20, "oe@": 1]) { $1 }
        #expect(query.questions(counts: apart) == ["\"jan\" AND \"oe@\"", "\"jane.doe@\""])
    }

    @Test func theThresholdIsAnEighthOfTheSample() {
        let eighth = EmailTrigramQuery.sampleRows / 8
        #expect(!EmailTrigramQuery.isCommon(eighth))
        #expect(EmailTrigramQuery.isCommon(eighth + 1))
        #expect(EmailTrigramQuery.commonCount == eighth + 1, "the sample counts no further")
    }

    @Test func quotesAreDoubledInsideThePhrase() throws {
        let query = try #require(EmailTrigramQuery("a\"b OR c"))
        #expect(query.questions(counts: [:]) == ["\"a\"\"b or\"", "\"a\"\"b or c\""])
    }

    @Test func aLongQuerySamplesAtMostSixteenWindows() throws {
        let query = try #require(EmailTrigramQuery(String(repeating: "abcdefghij", count: 10)))
        #expect(query.windows.count == EmailTrigramQuery.maximumWindows)
        #expect(query.windows.last?.start == 45)
    }
}
