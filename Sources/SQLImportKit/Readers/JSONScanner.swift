/// A byte-level JSON parser that writes record fields straight into a `RecordBatch`.
///
/// Hand-written on purpose: Foundation's JSONSerialization builds a dictionary of boxed
/// values per record (about 31 MB/s on this project's machine) and CSV.swift a String per
/// field (10 MB/s); a byte scanner that decodes strings straight into the batch's byte
/// store runs at well over 150 MB/s, and it can report the exact byte where a document
/// goes wrong. It follows RFC 8259 strictly: the JSONTestSuite corpus is its test.
struct JSONScanner {
    enum Failure: Error {
        /// The buffer ended inside the value; read more input and start the value again.
        case needMoreData
        case syntax(String, at: Int)
        case notAnObject(found: String, at: Int)
        case tooDeep(limit: Int, at: Int)
    }

    let base: UnsafePointer<UInt8>
    let end: Int
    var index: Int
    /// True when `end` is the end of the value's text (a JSON Lines line, or the end of
    /// input): running into it is then a syntax error, not a request for more data.
    let endIsFinal: Bool
    let maxDepth: Int
    let flatten: Bool

    /// The field name being built (with `--flatten`, its path: see `FieldPath`).
    private let keyScratch: ByteStore
    private var slot = 0
    /// (Unowned: the reader that passes it outlives every scanner, and a strong
    /// reference cost a retain and release per nested key.)
    private unowned(unsafe) let nestedKeys: NestedKeySet
    private let checksNestedKeys: Bool
    /// For the scanners that check the grammar only.
    nonisolated(unsafe) private static let unusedKeySet = NestedKeySet()  // never touched: checksNestedKeys is false

    /// The field being parsed, for error messages.
    var currentField: String? { keyScratch.isEmpty ? nil : FieldPath.dotted(keyScratch.string(0 ..< keyScratch.count)) }

    /// - Parameters:
    ///   - keys: scratch space for field names, reused across records.
    ///   - nestedKeys: the keys of the nested objects being copied, reused across records,
    ///     owned by the caller, which outlives the scanner; nil checks the grammar only (a
    ///     key given twice is valid JSON), for what is not stored as read (`--path`'s
    ///     skipped members, the Encodable API's JSON).
    init(
        _ buffer: UnsafeBufferPointer<UInt8>, start: Int = 0, endIsFinal: Bool, maxDepth: Int = 512, flatten: Bool = false,
        keys: ByteStore = ByteStore(capacity: 64), nestedKeys: NestedKeySet? = nil
    ) {
        keyScratch = keys
        self.nestedKeys = nestedKeys ?? Self.unusedKeySet
        checksNestedKeys = nestedKeys != nil
        base = buffer.baseAddress ?? UnsafePointer(bitPattern: 1)!
        end = buffer.count
        index = start
        self.endIsFinal = endIsFinal
        self.maxDepth = maxDepth
        self.flatten = flatten
    }

    // MARK: - Primitives

    @inline(__always) private func endFailure() -> Failure {
        endIsFinal ? .syntax("unexpected end of input", at: index) : .needMoreData
    }

    @inline(__always) func peek() throws(Failure) -> UInt8 {
        guard index < end else { throw endFailure() }
        return base[index]
    }

    @inline(__always) mutating func skipWhitespace() {
        while index < end {
            let byte = base[index]
            guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return }
            index += 1
        }
    }

    @inline(__always) mutating func expect(_ byte: UInt8, _ what: String) throws(Failure) {
        let found = try peek()
        guard found == byte else { throw .syntax("expected \(what), found \(Self.describe(found))", at: index) }
        index += 1
    }

    static func describe(_ byte: UInt8) -> String {
        if byte >= 0x20 && byte < 0x7F { return "'\(Character(UnicodeScalar(byte)))'" }
        return "byte 0x" + String(byte, radix: 16, uppercase: true)
    }

    // MARK: - Records

    /// Parses one object at `index` into a new row of `batch`. The caller commits or
    /// discards the row.
    /// - Parameter validatesNonObjects: a record that is another JSON value is checked for
    ///   syntax first (its syntax error is the message); JSON Lines passes false, so that
    ///   a line is refused at its first byte without the rest of it (see
    ///   `JSONLinesReader.refuseEarly`).
    mutating func parseRecord(into batch: RecordBatch, namer: ColumnNamer, validatesNonObjects: Bool = true) throws(Failure) {
        skipWhitespace()
        let first = try peek()
        guard first == UInt8(ascii: "{") else {
            let found: String
            switch first {
            case UInt8(ascii: "["): found = "an array"
            case UInt8(ascii: "\""): found = "a string"
            // (Only when the literal is whole: `not json` is no null.)
            case UInt8(ascii: "t") where startsLiteral("true"), UInt8(ascii: "f") where startsLiteral("false"): found = "a boolean"
            case UInt8(ascii: "n") where startsLiteral("null"): found = "null"
            case UInt8(ascii: "-"), UInt8(ascii: "0") ... UInt8(ascii: "9"): found = "a number"
            default: throw .syntax("expected a JSON object, found \(Self.describe(first))", at: index)
            }
            // Validate it, so that a malformed non-object reports its syntax error.
            if validatesNonObjects { try copyValue(into: ByteStore(capacity: 256), depth: 1) }
            throw .notAnObject(found: found, at: index)
        }
        index += 1
        keyScratch.removeAll()
        slot = 0
        try parseMembers(into: batch, namer: namer, depth: 1)
    }

    /// Parses the object at `index` into fields of the row being built, each named by
    /// its path under `prefix` (`FieldPath`): the Swift API's nested values.
    mutating func parseNestedObject(into batch: RecordBatch, namer: ColumnNamer, prefix: String, slot: inout Int) throws(Failure) {
        skipWhitespace()
        try expect(UInt8(ascii: "{"), "an object")
        keyScratch.removeAll()
        keyScratch.append(contentsOf: prefix.utf8)
        self.slot = slot
        try parseMembers(into: batch, namer: namer, depth: 1)
        slot = self.slot
    }

    private mutating func parseMembers(into batch: RecordBatch, namer: ColumnNamer, depth: Int) throws(Failure) {
        skipWhitespace()
        if try peek() == UInt8(ascii: "}") {
            index += 1
            return
        }
        let prefixLength = keyScratch.count
        while true {
            skipWhitespace()
            guard try peek() == UInt8(ascii: "\"") else {
                throw .syntax("expected a field name in double quotes, found \(Self.describe(base[index]))", at: index)
            }
            keyScratch.truncate(to: prefixLength)
            if prefixLength > 0 { keyScratch.append(FieldPath.separator) }
            let keyStart = index
            let nameStart = keyScratch.count
            try scanString(decodingInto: keyScratch)
            // Nested names are joined with U+001F (`FieldPath`): a key holding it would
            // read as a path, and an empty nested key as an empty object's marker.
            if UnsafeBufferPointer(start: keyScratch.base + nameStart, count: keyScratch.count - nameStart).contains(FieldPath.separator) {
                throw .syntax("the field name holds the control character U+001F, which joins nested names; rename the field", at: keyStart)
            }
            if prefixLength > 0 && keyScratch.count == nameStart {
                throw .syntax("a nested object has an empty field name, which names no column; rename the field", at: keyStart)
            }
            skipWhitespace()
            try expect(UInt8(ascii: ":"), "':' after a field name")
            skipWhitespace()
            let valueStart = try peek()
            if flatten && valueStart == UInt8(ascii: "{") {
                guard depth < maxDepth else { throw .tooDeep(limit: maxDepth, at: index) }
                index += 1
                skipWhitespace()
                if try peek() == UInt8(ascii: "}") {
                    // An empty object: a field that says it is there (an enum case with
                    // no value, `FieldPath.isPresenceMarker`), with no column of its own.
                    index += 1
                    keyScratch.append(FieldPath.separator)
                    let column = namer.column(for: UnsafeBufferPointer(start: keyScratch.base, count: keyScratch.count), slot: slot, batch: batch)
                    slot += 1
                    batch.set(column: column, .integer(1))
                } else {
                    try parseMembers(into: batch, namer: namer, depth: depth + 1)
                }
            } else {
                let column = namer.column(for: UnsafeBufferPointer(start: keyScratch.base, count: keyScratch.count), slot: slot, batch: batch)
                slot += 1
                let keepsExactNumber = namer.keepsExactNumbers[column]
                if keepsExactNumber { batch.forgetExactNumber(column: column) }
                batch.set(
                    column: column,
                    try parseFieldValue(into: batch, column: keepsExactNumber ? column : nil, spelling: namer.numberSpellings[column], depth: depth))
            }
            skipWhitespace()
            let next = try peek()
            index += 1
            if next == UInt8(ascii: ",") { continue }
            if next == UInt8(ascii: "}") { break }
            index -= 1
            throw .syntax("expected ',' or '}' after a field, found \(Self.describe(next))", at: index)
        }
        keyScratch.truncate(to: prefixLength)
    }

    /// - Parameters:
    ///   - column: the field's column when a number's text may be kept
    ///     (`ColumnNamer.keepsExactNumbers`), else nil.
    ///   - spelling: whether a number is its text as written (`ColumnNamer.numberSpellings`).
    private mutating func parseFieldValue(into batch: RecordBatch, column: Int?, spelling: NumberSpelling = .value, depth: Int) throws(Failure) -> Cell {
        let byte = try peek()
        switch byte {
        case UInt8(ascii: "\""):
            let start = batch.bytes.count
            try scanString(decodingInto: batch.bytes)
            return Cell(kind: .text, payload: Int64(start), length: UInt32(batch.bytes.count - start))
        case UInt8(ascii: "-"), UInt8(ascii: "0") ... UInt8(ascii: "9"):
            let (start, isInteger) = try scanNumber()
            let text = UnsafeRawBufferPointer(start: base + start, count: index - start)
            func written() -> Cell {
                let offset = batch.bytes.count
                batch.bytes.append(contentsOf: text)
                return Cell(kind: .numberAsText, payload: Int64(offset), length: UInt32(text.count))
            }
            if spelling == .written { return written() }
            if isInteger, case .value(let value) = NumberText.parseInteger(text) {
                return .integer(value)
            }
            if !isInteger, let value = NumberText.parseDouble(text) {
                // `9007199254740993.0` means an integer that the Double would not hold: the
                // integer, or past Int64 the text, as for an integer literal.
                switch NumberText.inexactWholeNumber(text, rounded: value) {
                case nil:
                    // Digits a double does not keep: their text too, for a column that
                    // stores decimals as written (`RecordBatch.exactNumbers`).
                    if let column, !NumberText.keepsDecimal(text, value) { batch.noteExactNumber(column: column, value: value, text: text) }
                    if spelling == .writtenWhereDigitsAreLost, !NumberText.keepsDecimal(text, value) { return written() }
                    return .real(value)
                case .value(let integer): return .integer(integer)
                default: break
                }
            }
            batch.numbersKeptAsText += 1
            let offset = batch.bytes.count
            batch.bytes.append(contentsOf: text)
            return Cell(kind: .numberAsText, payload: Int64(offset), length: UInt32(text.count))
        case UInt8(ascii: "t"):
            try scanLiteral("true")
            return .boolean(true)
        case UInt8(ascii: "f"):
            try scanLiteral("false")
            return .boolean(false)
        case UInt8(ascii: "n"):
            try scanLiteral("null")
            return .null
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            let start = batch.bytes.count
            try copyValue(into: batch.bytes, depth: depth + 1)
            return Cell(kind: .json, payload: Int64(start), length: UInt32(batch.bytes.count - start))
        default:
            throw .syntax("expected a value, found \(Self.describe(byte))", at: index)
        }
    }

    // MARK: - Any value, copied as compact JSON

    /// Copies the `,` or the `closing` bracket after a member of `container`; returns
    /// true when it was the closing bracket.
    @inline(__always)
    private mutating func copySeparator(closing: UInt8, in container: String, into output: ByteStore) throws(Failure) -> Bool {
        skipWhitespace()
        let next = try peek()
        guard next == UInt8(ascii: ",") || next == closing else {
            throw .syntax("expected ',' or '\(Character(Unicode.Scalar(closing)))' in \(container), found \(Self.describe(next))", at: index)
        }
        index += 1
        output.append(next)
        return next == closing
    }

    /// Validates the value at `index` and appends it without insignificant whitespace.
    /// Strings and numbers are copied as written, escapes included.
    mutating func copyValue(into output: ByteStore, depth: Int) throws(Failure) {
        // Peek first: at the end of a partial buffer, ask for more input rather than
        // report the depth at a position that depends on where the buffer ends.
        let byte = try peek()
        guard depth <= maxDepth else { throw .tooDeep(limit: maxDepth, at: index) }
        switch byte {
        case UInt8(ascii: "{"):
            index += 1
            output.append(byte)
            skipWhitespace()
            if try peek() == UInt8(ascii: "}") {
                index += 1
                output.append(UInt8(ascii: "}"))
                return
            }
            let objectKeys = checksNestedKeys ? nestedKeys.open() : 0
            defer { if checksNestedKeys { nestedKeys.close(objectKeys) } }
            while true {
                skipWhitespace()
                guard try peek() == UInt8(ascii: "\"") else {
                    throw .syntax("expected a field name in double quotes, found \(Self.describe(base[index]))", at: index)
                }
                let keyStart = index
                let mark = output.count
                try scanString(decodingInto: output)
                if checksNestedKeys, !nestedKeys.insert(UnsafeRawBufferPointer(start: output.base + mark, count: output.count - mark), object: objectKeys) {
                    let name = output.string(mark ..< output.count)
                    throw .syntax(
                        "the key \"\(name)\" appears twice in one object, which JSON readers resolve differently (SQLite's JSON functions read the first value, most others the last); keep one",
                        at: keyStart)
                }
                // Stored as written, escapes and all.
                output.truncate(to: mark)
                output.append(base + keyStart, count: index - keyStart)
                skipWhitespace()
                try expect(UInt8(ascii: ":"), "':' after a field name")
                output.append(UInt8(ascii: ":"))
                skipWhitespace()
                try copyValue(into: output, depth: depth + 1)
                if try copySeparator(closing: UInt8(ascii: "}"), in: "an object", into: output) { return }
            }
        case UInt8(ascii: "["):
            index += 1
            output.append(byte)
            skipWhitespace()
            if try peek() == UInt8(ascii: "]") {
                index += 1
                output.append(UInt8(ascii: "]"))
                return
            }
            while true {
                skipWhitespace()
                try copyValue(into: output, depth: depth + 1)
                if try copySeparator(closing: UInt8(ascii: "]"), in: "an array", into: output) { return }
            }
        case UInt8(ascii: "\""):
            try scanString(verbatimInto: output)
        case UInt8(ascii: "-"), UInt8(ascii: "0") ... UInt8(ascii: "9"):
            let (start, _) = try scanNumber()
            output.append(base + start, count: index - start)
        case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
            let start = index
            try scanLiteral(byte == UInt8(ascii: "t") ? "true" : byte == UInt8(ascii: "f") ? "false" : "null")
            output.append(base + start, count: index - start)
        default:
            throw .syntax("expected a value, found \(Self.describe(byte))", at: index)
        }
    }

    // MARK: - Scalars

    /// Whether the bytes from `index` spell `literal`, ending there (`nullx` is none).
    private func startsLiteral(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard end - index >= count, (0 ..< count).allSatisfy({ base[index + $0] == literal.utf8Start[$0] }) else { return false }
        guard index + count < end else { return true }
        let next = base[index + count]
        return next == 0x20 || next == 0x09 || next == 0x0A || next == 0x0D || next == UInt8(ascii: ",") || next == UInt8(ascii: "]") || next == UInt8(ascii: "}")
    }

    private mutating func scanLiteral(_ literal: StaticString) throws(Failure) {
        let start = index
        let count = literal.utf8CodeUnitCount
        for offset in 0 ..< count {
            guard start + offset < end else {
                index = start + offset
                throw endFailure()
            }
            if base[start + offset] != literal.utf8Start[offset] {
                throw .syntax("invalid literal (expected \(literal))", at: start + offset)
            }
        }
        index = start + count
    }

    /// Scans a number per RFC 8259; returns its start and whether it is an integer.
    private mutating func scanNumber() throws(Failure) -> (start: Int, isInteger: Bool) {
        let start = index
        var isInteger = true
        if base[index] == UInt8(ascii: "-") { index += 1 }
        func digitRun(_ scanner: inout JSONScanner) throws(Failure) -> Int {
            let from = scanner.index
            while scanner.index < scanner.end, scanner.base[scanner.index] &- UInt8(ascii: "0") < 10 { scanner.index += 1 }
            if scanner.index == scanner.end, !scanner.endIsFinal { throw .needMoreData }
            return scanner.index - from
        }
        let first = try peek()
        if first == UInt8(ascii: "0") {
            index += 1
            if index == end, !endIsFinal { throw .needMoreData }
        } else if first &- UInt8(ascii: "1") < 9 {
            _ = try digitRun(&self)
        } else {
            throw .syntax("invalid number: expected a digit after '-'", at: index)
        }
        if index < end, base[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard try digitRun(&self) > 0 else { throw .syntax("invalid number: expected a digit after '.'", at: index) }
        }
        if index < end, base[index] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            index += 1
            let sign = try peek()
            if sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { index += 1 }
            guard try digitRun(&self) > 0 else { throw .syntax("invalid number: expected a digit in the exponent", at: index) }
        }
        return (start, isInteger)
    }

    /// Scans a string starting at its opening quote and appends its decoded UTF-8 value.
    /// Invalid UTF-8, control characters, bad escapes and lone surrogates are errors.
    mutating func scanString(decodingInto output: ByteStore) throws(Failure) {
        index += 1  // opening quote
        var runStart = index
        while true {
            index = Self.skipPlainBytes(base, from: index, to: end)
            guard index < end else { throw endFailure() }
            let byte = base[index]
            if byte == UInt8(ascii: "\"") {
                output.append(base + runStart, count: index - runStart)
                index += 1
                return
            }
            if byte == UInt8(ascii: "\\") {
                output.append(base + runStart, count: index - runStart)
                try decodeEscape(into: output)
                runStart = index
                continue
            }
            if byte < 0x20 {
                throw .syntax("control character \(Self.describe(byte)) inside a string; escape it (e.g. \\n)", at: index)
            }
            switch UTF8Validation.validateSequence(base, index, end) {
            case .valid(let length): index += length
            case .incomplete: throw endFailure()
            case .invalid: throw .syntax("invalid UTF-8 \(Self.describe(byte)) inside a string", at: index)
            }
        }
    }

    /// Skips bytes that need no attention inside a string (printable ASCII other than
    /// `"` and `\\`), eight at a time: returns the index of the first byte that does.
    @inline(__always)
    static func skipPlainBytes(_ base: UnsafePointer<UInt8>, from start: Int, to end: Int) -> Int {
        var index = start
        while index + 8 <= end {
            let word = ByteScanning.word(at: base + index)
            let special = ByteScanning.matches(word, UInt8(ascii: "\"")) | ByteScanning.matches(word, UInt8(ascii: "\\"))
                | ByteScanning.controlOrNonASCII(word)
            if special != 0 { break }
            index += 8
        }
        while index < end {
            let byte = base[index]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 || byte >= 0x80 { return index }
            index += 1
        }
        return index
    }

    /// Scans a string and appends it as written, quotes and escapes included. It is
    /// validated by the decoding scan, whose output is then replaced by the raw bytes.
    private mutating func scanString(verbatimInto output: ByteStore) throws(Failure) {
        let start = index
        let mark = output.count
        try scanString(decodingInto: output)
        output.truncate(to: mark)
        output.append(base + start, count: index - start)
    }

    private mutating func decodeEscape(into output: ByteStore) throws(Failure) {
        index += 1  // backslash
        let byte = try peek()
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): output.append(byte)
        case UInt8(ascii: "b"): output.append(0x08)
        case UInt8(ascii: "f"): output.append(0x0C)
        case UInt8(ascii: "n"): output.append(0x0A)
        case UInt8(ascii: "r"): output.append(0x0D)
        case UInt8(ascii: "t"): output.append(0x09)
        case UInt8(ascii: "u"):
            let unit = try hex4()
            if unit & 0xFC00 == 0xD800 {
                // A high surrogate must be followed by an escaped low one.
                guard index + 1 < end || endIsFinal else { throw .needMoreData }
                guard index + 1 < end, base[index] == UInt8(ascii: "\\"), base[index + 1] == UInt8(ascii: "u") else {
                    throw .syntax("lone surrogate \\u\(String(unit, radix: 16, uppercase: true)) has no low surrogate after it; it cannot be stored as UTF-8", at: index)
                }
                index += 2
                let low = try hex4()
                guard low & 0xFC00 == 0xDC00 else {
                    throw .syntax("surrogate \\u\(String(unit, radix: 16, uppercase: true)) is followed by \\u\(String(low, radix: 16, uppercase: true)), not a low surrogate", at: index)
                }
                UTF8Validation.append(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00), to: output)
            } else if unit & 0xFC00 == 0xDC00 {
                throw .syntax("lone low surrogate \\u\(String(unit, radix: 16, uppercase: true)); it cannot be stored as UTF-8", at: index)
            } else {
                UTF8Validation.append(unit, to: output)
            }
        default:
            throw .syntax("invalid escape \\\(Character(UnicodeScalar(byte)))", at: index - 1)
        }
    }

    private mutating func hex4() throws(Failure) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0 ..< 4 {
            let byte = try peek()
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0") ... UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a") ... UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A") ... UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw .syntax("invalid \\u escape: \(Self.describe(byte)) is not a hex digit", at: index)
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }
}

extension JSONScanner {
    /// Validates a whole document: one value and nothing after it but whitespace, by
    /// JSON's grammar alone (a key given twice in an object is valid JSON).
    /// Used to check a buffer that is the entire text.
    static func validateDocument(_ buffer: UnsafeBufferPointer<UInt8>, maxDepth: Int = 512) throws(Failure) {
        var scanner = JSONScanner(buffer, endIsFinal: true, maxDepth: maxDepth, nestedKeys: nil)
        scanner.skipWhitespace()
        try scanner.copyValue(into: ByteStore(capacity: buffer.count + 16), depth: 1)
        scanner.skipWhitespace()
        guard scanner.index == scanner.end else {
            throw .syntax("unexpected \(describe(buffer[scanner.index])) after the value", at: scanner.index)
        }
    }
}
