/// PostgreSQL's text for arrays (`{1,2}`, `{{"a b",NULL}}`, `[0:1]={1,2}`), read into its
/// elements so that each is checked as a value of the element type, and written from a
/// JSON array, which a PostgreSQL array column otherwise refused ("malformed array
/// literal").
///
/// Hand-written: PostgreSQL's `array_in` is the grammar, and no library reads it. The
/// reading is lenient where PostgreSQL is strict (it does not check that commas separate
/// the elements): text it reads wrongly here, the server refuses itself.
enum PostgresArrayText {
    /// The element type of an array type as `format_type` prints it (`real[]` is `real`,
    /// `numeric(5,2)[]` is `numeric(5,2)`), or nil for a type that is no array.
    static func elementType(of type: String) -> String? {
        guard type.hasSuffix("[]") else { return nil }
        var element = Substring(type)
        while element.hasSuffix("[]") { element = element.dropLast(2) }
        return String(element)
    }

    /// The text of a `text[]` holding `texts`, each quoted (a parameter's value).
    static func literal(_ texts: some Sequence<String>) -> String {
        "{" + texts.map { "\"" + $0.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\"" }.joined(separator: ",") + "}"
    }

    /// The elements of an array's text in order, nil standing for `NULL`; nil when the
    /// text is no array PostgreSQL reads (it then refuses the value itself).
    static func elements(_ text: UnsafeRawBufferPointer) -> [[UInt8]?]? {
        let count = text.count
        var index = 0
        func skipSpace() { while index < count, isSpace(text[index]) { index += 1 } }
        skipSpace()
        if index < count, text[index] == UInt8(ascii: "[") {
            // Dimensions, `[1:3]=`.
            while index < count, text[index] != UInt8(ascii: "=") { index += 1 }
            index += 1
            skipSpace()
        }
        guard index < count, text[index] == UInt8(ascii: "{") else { return nil }
        var result: [[UInt8]?] = []
        var depth = 0
        while index < count {
            let byte = text[index]
            switch byte {
            case _ where isSpace(byte), UInt8(ascii: ","):
                index += 1
                continue
            case UInt8(ascii: "{"):
                depth += 1
                index += 1
                continue
            case UInt8(ascii: "}"):
                depth -= 1
                index += 1
                if depth == 0 {
                    skipSpace()
                    return index == count ? result : nil
                }
                continue
            default:
                break
            }
            guard depth > 0 else { return nil }
            var element: [UInt8] = []
            if byte == UInt8(ascii: "\"") {
                index += 1
                while true {
                    guard index < count else { return nil }
                    let byte = text[index]
                    index += 1
                    if byte == UInt8(ascii: "\"") { break }
                    if byte == UInt8(ascii: "\\") {
                        guard index < count else { return nil }
                        element.append(text[index])
                        index += 1
                    } else {
                        element.append(byte)
                    }
                }
                result.append(element)
                continue
            }
            // Unquoted: white space around it is not part of it, a backslash escapes
            // the next byte, and `NULL` without one is the null.
            var trailingSpace = 0
            var escaped = false
            while index < count {
                let byte = text[index]
                if byte == UInt8(ascii: ",") || byte == UInt8(ascii: "}") || byte == UInt8(ascii: "{") || byte == UInt8(ascii: "\"") { break }
                index += 1
                if byte == UInt8(ascii: "\\") {
                    guard index < count else { return nil }
                    element.append(text[index])
                    index += 1
                    escaped = true
                    trailingSpace = 0
                } else {
                    element.append(byte)
                    trailingSpace = isSpace(byte) ? trailingSpace + 1 : 0
                }
            }
            element.removeLast(trailingSpace)
            let isNull = !escaped && element.count == 4 && element.map { $0 & ~0x20 }.elementsEqual("NULL".utf8)
            result.append(isNull ? nil : element)
        }
        return nil
    }

    /// A JSON array as an array's text, each element as the same value would go into a
    /// column of the element type (`family`): `[1,"a b",null,true]` is
    /// `{1,"a b",NULL,true}`, an inner array is a dimension, an object its JSON text (a
    /// `json[]` element), a number as written; into `integer[]` a whole number spelled
    /// with a point or an exponent (`1.0`, `"4.0"`, `1e2`) is that integer, and into
    /// `bytea[]` a string is its UTF-8 bytes and a BLOB marker its bytes (PostgreSQL's
    /// bytea input read `"\\x41"` as one byte, as it did for the scalar). Nil for JSON
    /// that is no array (or no JSON: `json` may be a string's text).
    static func text(ofJSONArray json: UnsafeRawBufferPointer, element family: PostgresValueCheck.Family = .other) throws(Refusal) -> [UInt8]? {
        guard let base = json.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
        let buffer = UnsafeBufferPointer(start: base, count: json.count)
        var start = 0
        while start < json.count, isSpace(json[start]) { start += 1 }
        guard start < json.count, json[start] == UInt8(ascii: "[") else { return nil }
        do {
            try JSONScanner.validateDocument(buffer)
        } catch {
            return nil
        }
        var out: [UInt8] = []
        var scanner = JSONScanner(buffer, start: start, endIsFinal: true)
        let scratch = ByteStore(capacity: 64)
        func appendQuoted() {
            out.append(UInt8(ascii: "\""))
            scratch.withUnsafeBufferPointer { value in
                for byte in value {
                    if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { out.append(UInt8(ascii: "\\")) }
                    out.append(byte)
                }
            }
            out.append(UInt8(ascii: "\""))
        }
        func appendBytes(_ bytes: UnsafeRawBufferPointer) {
            out.append(UInt8(ascii: "\""))
            PostgresRun.appendByteaHex(bytes, to: &out)
            out.append(UInt8(ascii: "\""))
        }
        /// `text` (a number or a string's value) into an integer element: the integer a
        /// whole number spelled with a point or an exponent means, else nil.
        func whole(_ text: UnsafeBufferPointer<UInt8>) -> Int64? {
            guard let start = text.baseAddress else { return nil }
            return PostgresValueCheck.wholeNumber(Cell(kind: .text, payload: 0, length: UInt32(text.count)), bytes: start)
        }
        do {
            while scanner.index < json.count {
                let byte = json[scanner.index]
                switch byte {
                case UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: ","):
                    out.append(byte == UInt8(ascii: ",") ? byte : byte == UInt8(ascii: "[") ? UInt8(ascii: "{") : UInt8(ascii: "}"))
                    scanner.index += 1
                case UInt8(ascii: "\""):
                    scratch.removeAll()
                    try scanner.scanString(decodingInto: scratch)
                    if family == .bytea {
                        scratch.withUnsafeBufferPointer { appendBytes(UnsafeRawBufferPointer($0)) }
                    } else if family == .integer, let value = scratch.withUnsafeBufferPointer(whole) {
                        out.append(contentsOf: String(value).utf8)
                    } else {
                        appendQuoted()
                    }
                case UInt8(ascii: "{"):
                    scratch.removeAll()
                    try scanner.copyValue(into: scratch, depth: 1)
                    if family == .bytea, let blob = scratch.withUnsafeBufferPointer({ BlobMarker.decodeJSON(UnsafeRawBufferPointer($0)) }) {
                        blob.withUnsafeBytes(appendBytes)
                    } else {
                        appendQuoted()
                    }
                case UInt8(ascii: "n"):
                    out.append(contentsOf: "NULL".utf8)
                    scanner.index += 4
                case _ where isSpace(byte):
                    scanner.index += 1
                default:
                    // A number, `true` or `false`, as written.
                    let first = scanner.index
                    while scanner.index < json.count, ![UInt8(ascii: ","), UInt8(ascii: "]")].contains(json[scanner.index]), !isSpace(json[scanner.index]) {
                        scanner.index += 1
                    }
                    let value = UnsafeBufferPointer(rebasing: buffer[first ..< scanner.index])
                    if family == .bytea {
                        throw Refusal(
                            "has the element \(String(decoding: value, as: UTF8.self)), a \(byte == UInt8(ascii: "t") || byte == UInt8(ascii: "f") ? "boolean" : "number"), and this bytea[] column holds bytes; give them as a BLOB marker {\"$base64\":\"...\"} (what export writes), or as a string for its UTF-8 bytes")
                    }
                    if family == .integer, let number = whole(value) {
                        out.append(contentsOf: String(number).utf8)
                    } else {
                        out.append(contentsOf: value)
                    }
                }
            }
        } catch let refusal as Refusal {
            throw refusal
        } catch {
            return nil
        }
        return out
    }

    /// Why a JSON array's element cannot go into the array's element type.
    struct Refusal: Error {
        var why: String
        init(_ why: String) { self.why = why }
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte &- 0x09 < 5
    }
}

extension PostgresValueCheck {
    /// The checks of an array column's elements, read once per column from its element
    /// type (`PostgresArrayText.elementType`), not per value.
    struct ArrayElements {
        let type: String
        /// The element type's family, `bytea` included (a JSON array's strings are its
        /// bytes: `PostgresArrayText.text(ofJSONArray:element:)`).
        let family: Family
        let limit: Limit

        init(type: String) {
            self.type = type
            family = Family(type: type)
            limit = Limit(type: type)
        }

        /// Why an element of `text`, an array's text, cannot go into a column of the
        /// element type, or nil when each can: PostgreSQL reads every element as a value
        /// of that type, and changed them without a word as it changes the scalars
        /// `refusal(_:family:bytes:)` refuses (`{3.14159265358979}` into `real[]` stored
        /// `{3.1415927}`, `{1.239}` into `numeric(5,2)[]` `{1.24}`).
        func refusal(_ text: UnsafeRawBufferPointer) -> String? {
            // The elements of a `bytea[]` are PostgreSQL's bytea text, as the array is its text.
            let checked = family == .bytea ? .other : family
            guard checked != .other || limit != .none, let elements = PostgresArrayText.elements(text) else { return nil }
            for case let element? in elements {
                let why: String? = (element.isEmpty ? [0] : element).withUnsafeBufferPointer { buffer in
                    let cell = Cell(kind: .text, payload: 0, length: UInt32(element.count))
                    let bytes = buffer.baseAddress!
                    if let why = PostgresValueCheck.refusal(cell, family: checked, bytes: bytes) ?? PostgresValueCheck.refusal(cell, limit: limit, type: type, bytes: bytes) {
                        return why
                    }
                    // A time that is not ISO 8601: only PostgreSQL's reading can say whether
                    // it has a zone, a time of day or a date the column drops.
                    // (A timetz element keeps its zone; an ISO 8601 date in it is refused
                    // above, and other spellings pass, as they did.)
                    guard let kind = serverJudges(cell, limit: limit, type: type, bytes: bytes), kind != "timetz" else { return nil }
                    let dropped = kind == "date" ? "time of day" : kind == "time" ? "date or time zone" : "time zone"
                    return "is not written as ISO 8601, and whether this \(type) column would drop its \(dropped) only PostgreSQL's reading can say; write it as ISO 8601 (2026-11-20T10:00:00Z)"
                }
                if let why { return "has the element \(String(decoding: element, as: UTF8.self)), which \(why)" }
            }
            return nil
        }
    }
}
