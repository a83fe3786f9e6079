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

    /// The FTS5 expression for the counts of `sampledTrigrams` (`counts[trigram]`): the phrases of the
    /// query's stretches that no common window touches, joined by AND; nil when every window is common,
    /// which leaves nothing cheap to ask (the caller then walks the accounts in creation order).
    func expression(counts: [String: Int]) -> String? {
        let scalars = Array(text.unicodeScalars)
        var stretches: [Range<Int>] = []
        for window in windows where !Self.isCommon(counts[window.trigram] ?? 0) {
            let span = window.start..<window.start + 3
            if let last = stretches.last, last.upperBound >= span.lowerBound {
                stretches[stretches.count - 1] = last.lowerBound..<max(last.upperBound, span.upperBound)
            } else {
                stretches.append(span)
            }
        }
        guard !stretches.isEmpty else { return nil }
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
