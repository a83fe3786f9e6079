/// The FTS5 question the SQLite account search asks for an "email contains" query: not the query's whole
/// phrase but only its parts made of uncommon trigrams. FTS5 answers a phrase by reading every one of its
/// trigrams' lists, so a pasted address (`jane.doe@gmail.com`) read the lists of `gma`, `com` and the rest,
/// nearly every account each: ~100 ms at a million accounts whose emails are not in creation order. The
/// trigrams left out only widen the candidates; the `LIKE` on each candidate stays the exact test.
struct EmailTrigramQuery: Equatable {
    /// The query, lowercased as the stored emails are.
    let text: String
    /// The trigram windows whose frequency is sampled: every third one from the start, and the last, so
    /// together they cover every character (fewer FTS5 lookups than every window).
    let windows: [Window]

    /// Accounts (the oldest, by search row) in which each sampled trigram is counted.
    static var sampleRows: Int { 256 }
    /// A trigram in more than an eighth of the sample is common: its list is left unread.
    static func isCommon(_ count: Int) -> Bool { count >= commonCount }
    /// The smallest sampled count that is common (the sample's counting stops there).
    static var commonCount: Int { sampleRows / 8 + 1 }
    /// The most windows sampled; a longer query's later windows are left out of the question.
    static var maximumWindows: Int { 16 }

    /// A run of three Unicode scalars of `text`, at scalar offset `start`.
    struct Window: Equatable {
        let start: Int
        let trigram: String
    }

    /// Nil below three characters, which no trigram covers.
    init?(_ query: String) {
        text = query.lowercased()
        let scalars = Array(text.unicodeScalars)
        guard scalars.count >= 3 else { return nil }
        var starts = Array(stride(from: 0, through: scalars.count - 3, by: 3))
        if starts.last != scalars.count - 3 { starts.append(scalars.count - 3) }
        windows = starts.prefix(Self.maximumWindows).map { start in
            var trigram = String.UnicodeScalarView()
            trigram.append(contentsOf: scalars[start..<start + 3])
            return Window(start: start, trigram: String(trigram))
        }
    }

    /// The distinct trigrams to count, in the order of `windows`.
    var sampledTrigrams: [String] {
        var seen = Set<String>()
        return windows.map(\.trigram).filter { seen.insert($0).inserted }
    }

    /// How many of the rarest windows the first question is made of.
    static var firstQuestionWindows: Int { 2 }

    /// The FTS5 questions to ask, in turn, for the counts of `sampledTrigrams` (`counts[trigram]`), until one has
    /// few enough matches: first the stretches of the two rarest uncommon windows (FTS5's cost is the sum of the
    /// lists it reads, and two lists usually narrow the candidates far enough), then those of every uncommon
    /// window. Empty when every window is common, which leaves nothing cheap to ask (the caller then walks the
    /// accounts in creation order).
    func questions(counts: [String: Int]) -> [String] {
        let uncommon = windows.filter { !Self.isCommon(counts[$0.trigram] ?? 0) }
        guard !uncommon.isEmpty else { return [] }
        let rarest = uncommon.enumerated()
            .sorted { (counts[$0.element.trigram] ?? 0, $0.offset) < (counts[$1.element.trigram] ?? 0, $1.offset) }
            .prefix(Self.firstQuestionWindows).map(\.element).sorted { $0.start < $1.start }
        let first = expression(rarest), every = expression(uncommon)
        return first == every ? [first] : [first, every]
    }

    /// The phrases of the query's stretches that `chosen` (in query order) cover, overlapping or adjacent windows
    /// joined into one, the stretches joined by AND.
    func expression(_ chosen: [Window]) -> String {
        let scalars = Array(text.unicodeScalars)
        var stretches: [Range<Int>] = []
        for window in chosen {
            let span = window.start..<window.start + 3
            if let last = stretches.last, last.upperBound >= span.lowerBound {
                stretches[stretches.count - 1] = last.lowerBound..<max(last.upperBound, span.upperBound)
            } else {
                stretches.append(span)
            }
        }
        return stretches.map { stretch in
            var part = String.UnicodeScalarView()
            part.append(contentsOf: scalars[stretch])
            return Self.phrase(String(part))
        }.joined(separator: " AND ")
    }

    /// `text` as an FTS5 phrase: every character literal, quotes doubled.
    static func phrase(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
