import Foundation

/// One record of an import file as text fields, with the line it starts on.
public struct ImportRecord: Sendable, Equatable {
    public var line: Int
    /// Field name → value; JSON values other than strings keep their JSON meaning (`Bool`, numbers, arrays).
    public var fields: [String: ImportValue]
}

/// A field value from a JSON-lines or CSV import file.
public enum ImportValue: Sendable, Equatable {
    case string(String)
    case bool(Bool)
    case number(Double)
    case null
    /// JSON `identities`: a list of objects.
    case objects([[String: ImportValue]])
}

/// A line-numbered problem in an import file.
public struct ImportRowError: Error, Sendable, Equatable, CustomStringConvertible {
    public var line: Int
    public var message: String
    public var description: String { "line \(line): \(message)" }

    public init(line: Int, message: String) {
        self.line = line
        self.message = message
    }
}

/// Reads JSON lines (one object per line) or CSV (RFC 4180, a header row) into records.
public enum ImportFileReader {
    public enum Format: String, Sendable { case jsonLines = "jsonl", csv }

    /// Guesses the format: a file whose first non-blank character is `{` is JSON lines.
    public static func detect(_ text: String) -> Format {
        text.first(where: { !$0.isWhitespace }) == "{" ? .jsonLines : .csv
    }

    /// Records and the line-numbered errors of records that could not be read.
    public static func read(_ text: String, format: Format) -> (records: [ImportRecord], errors: [ImportRowError]) {
        switch format {
        case .jsonLines: return readJSONLines(text)
        case .csv: return readCSV(text)
        }
    }

    /// A JSON-lines file cut at line ends into at most `parts` pieces of about equal size, each with the number
    /// of its first line: ``read(jsonLines:firstLine:)`` of every piece, in order, reads what ``read(_:format:)``
    /// reads of the whole, and the pieces can be read at once on several cores. (A CSV record may span lines;
    /// a JSON line cannot, as a JSON string holds no raw line feed.)
    public static func jsonLinePieces(_ text: String, parts: Int) -> [(text: Substring, firstLine: Int)] {
        let bytes = text.utf8
        var pieces: [(text: Substring, firstLine: Int)] = []
        var start = bytes.startIndex, firstLine = 1
        for part in 1...max(1, parts) {
            guard start < bytes.endIndex else { break }
            var end = bytes.endIndex
            if part < parts, let target = bytes.index(bytes.startIndex, offsetBy: bytes.count / parts * part, limitedBy: bytes.endIndex),
               target > start, let lineFeed = bytes[target...].firstIndex(of: 0x0A) {
                end = bytes.index(after: lineFeed)
            }
            pieces.append((Substring(bytes[start..<end]), firstLine))
            firstLine += bytes[start..<end].withContiguousStorageIfAvailable { $0.reduce(0) { $1 == 0x0A ? $0 + 1 : $0 } }
                ?? bytes[start..<end].reduce(0) { $1 == 0x0A ? $0 + 1 : $0 }
            start = end
        }
        return pieces
    }

    /// Records and errors of one piece of a JSON-lines file whose first line is `firstLine`.
    public static func read(jsonLines text: Substring, firstLine: Int) -> (records: [ImportRecord], errors: [ImportRowError]) {
        readJSONLines(text, firstLine: firstLine)
    }

    private static func readJSONLines(_ text: some StringProtocol, firstLine: Int = 1) -> ([ImportRecord], [ImportRowError]) {
        var records: [ImportRecord] = [], errors: [ImportRowError] = []
        var text = Substring(text)
        text.withUTF8 { bytes in
            var start = 0, number = firstLine
            // Lines end at LF, and a CR just before it is part of the line ending (files written on Windows).
            for end in 0...bytes.count where end == bytes.count || bytes[end] == 0x0A {
                let stop = end > start && end < bytes.count && bytes[end - 1] == 0x0D ? end - 1 : end
                let line = UnsafeBufferPointer(rebasing: bytes[start..<stop])
                if let fields = ImportJSONLineParser.fields(line) {
                    records.append(ImportRecord(line: number, fields: fields))
                } else {
                    readWithFoundation(String(decoding: line, as: UTF8.self), number: number, &records, &errors)
                }
                start = end + 1; number += 1
            }
        }
        return (records, errors)
    }

    /// A line the fast parser left alone (blank, invalid, or unusual): read as JSONSerialization reads it.
    private static func readWithFoundation(_ line: String, number: Int, _ records: inout [ImportRecord], _ errors: inout [ImportRowError]) {
        let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty { return }
        guard let object = try? JSONSerialization.jsonObject(with: Data(trimmed.utf8)) as? [String: Any] else {
            errors.append(ImportRowError(line: number, message: "not a JSON object"))
            return
        }
        var fields: [String: ImportValue] = [:]
        var bad: String?
        for (key, value) in object {
            if let converted = convert(value) { fields[key] = converted } else { bad = key }
        }
        if let bad { errors.append(ImportRowError(line: number, message: "field \(bad) has an unsupported value")) }
        else { records.append(ImportRecord(line: number, fields: fields)) }
    }

    private static func convert(_ value: Any) -> ImportValue? {
        if value is NSNull { return .null }
        if let string = value as? String { return .string(string) }
        if let number = value as? NSNumber {
            let isBool = String(cString: number.objCType) == "c" || type(of: number) == type(of: NSNumber(value: true))
            return isBool ? .bool(number.boolValue) : .number(number.doubleValue)
        }
        if let list = value as? [Any] {
            var objects: [[String: ImportValue]] = []
            for item in list {
                guard let object = item as? [String: Any] else { return nil }
                var converted: [String: ImportValue] = [:]
                for (key, value) in object {
                    guard let inner = convert(value), !isObjects(inner) else { return nil }
                    converted[key] = inner
                }
                objects.append(converted)
            }
            return .objects(objects)
        }
        return nil
    }

    private static func isObjects(_ value: ImportValue) -> Bool { if case .objects = value { return true } else { return false } }

    /// RFC 4180: fields separated by commas, optionally double-quoted (`""` inside quotes is a
    /// quote), records ending in LF or CRLF; quoted fields may span lines.
    private static func readCSV(_ text: String) -> ([ImportRecord], [ImportRowError]) {
        var rows: [(line: Int, fields: [String])] = []
        var errors: [ImportRowError] = []
        var field = "", fields: [String] = [], inQuotes = false, afterQuote = false
        var line = 1, recordLine = 1
        var characters = Array(text.unicodeScalars)
        if characters.last != "\n" { characters.append("\n") }
        var broken = false
        for scalar in characters {
            if inQuotes {
                if scalar == "\"" { inQuotes = false; afterQuote = true } else { field.unicodeScalars.append(scalar) }
                if scalar == "\n" { line += 1 }
                continue
            }
            switch scalar {
            case "\"":
                if afterQuote { field.append("\""); inQuotes = true; afterQuote = false }
                else if field.isEmpty { inQuotes = true }
                else { broken = true }
            case ",":
                fields.append(field); field = ""; afterQuote = false
            case "\r":
                continue
            case "\n":
                fields.append(field); field = ""; afterQuote = false
                if broken { errors.append(ImportRowError(line: recordLine, message: "malformed CSV quoting")) }
                else if !(fields.count == 1 && fields[0].isEmpty) { rows.append((recordLine, fields)) }
                fields = []; broken = false
                line += 1; recordLine = line
            default:
                if afterQuote { broken = true }
                field.unicodeScalars.append(scalar)
            }
        }
        if inQuotes { errors.append(ImportRowError(line: recordLine, message: "unterminated quoted field")) }
        guard let header = rows.first else { return ([], errors) }
        let names = header.fields.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        var records: [ImportRecord] = []
        for row in rows.dropFirst() {
            guard row.fields.count == names.count else {
                errors.append(ImportRowError(line: row.line, message: "has \(row.fields.count) fields, the header has \(names.count)"))
                continue
            }
            var values: [String: ImportValue] = [:]
            for (name, value) in zip(names, row.fields) where !value.isEmpty { values[name] = .string(value) }
            records.append(ImportRecord(line: row.line, fields: values))
        }
        return (records, errors)
    }
}
