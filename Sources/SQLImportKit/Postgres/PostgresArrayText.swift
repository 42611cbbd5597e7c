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

    /// A JSON array (the compact text the readers keep for a nested value) as an array's
    /// text: `[1,"a b",null,true]` is `{1,"a b",NULL,true}`, an inner array is a
    /// dimension, an object its JSON text (a `json[]` element), a number as written.
    /// Nil for JSON that is no array.
    static func text(ofJSONArray json: UnsafeRawBufferPointer) -> [UInt8]? {
        guard json.first == UInt8(ascii: "["), let base = json.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
        var out: [UInt8] = []
        var scanner = JSONScanner(UnsafeBufferPointer(start: base, count: json.count), endIsFinal: true)
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
                    appendQuoted()
                case UInt8(ascii: "{"):
                    scratch.removeAll()
                    try scanner.copyValue(into: scratch, depth: 1)
                    appendQuoted()
                case UInt8(ascii: "n"):
                    out.append(contentsOf: "NULL".utf8)
                    scanner.index += 4
                case _ where isSpace(byte):
                    scanner.index += 1
                default:
                    // A number, `true` or `false`, as written.
                    while scanner.index < json.count, ![UInt8(ascii: ","), UInt8(ascii: "]")].contains(json[scanner.index]), !isSpace(json[scanner.index]) {
                        out.append(json[scanner.index])
                        scanner.index += 1
                    }
                }
            }
        } catch {
            return nil
        }
        return out
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte &- 0x09 < 5
    }
}

extension PostgresValueCheck {
    /// Why an element of `text`, an array's text, cannot go into a column of `elementType`
    /// (`PostgresArrayText.elementType`), or nil when each can: PostgreSQL reads every
    /// element as a value of that type, and changed them without a word as it changes the
    /// scalars `refusal(_:family:bytes:)` refuses (`{3.14159265358979}` into `real[]`
    /// stored `{3.1415927}`, `{1.239}` into `numeric(5,2)[]` `{1.24}`).
    static func arrayRefusal(_ text: UnsafeRawBufferPointer, elementType: String) -> String? {
        // The elements of a `bytea[]` are PostgreSQL's bytea text, as the array is its text.
        let family = Family(type: elementType) == .bytea ? .other : Family(type: elementType)
        let limit = Limit(type: elementType)
        guard family != .other || limit != .none, let elements = PostgresArrayText.elements(text) else { return nil }
        for case let element? in elements {
            let why: String? = (element.isEmpty ? [0] : element).withUnsafeBufferPointer { buffer in
                let cell = Cell(kind: .text, payload: 0, length: UInt32(element.count))
                let bytes = buffer.baseAddress!
                if let why = refusal(cell, family: family, bytes: bytes) ?? refusal(cell, limit: limit, type: elementType, bytes: bytes) {
                    return why
                }
                // A time that is not ISO 8601: only PostgreSQL's reading can say whether it
                // has a zone or a time of day the column drops.
                guard serverJudges(cell, limit: limit, type: elementType, bytes: bytes) != nil else { return nil }
                return "is not written as ISO 8601, and whether this \(elementType) column would drop its \(limit == .date ? "time of day" : "time zone") only PostgreSQL's reading can say; write it as ISO 8601 (2026-11-20T10:00:00Z)"
            }
            if let why { return "has the element \(String(decoding: element, as: UTF8.self)), which \(why)" }
        }
        return nil
    }
}
