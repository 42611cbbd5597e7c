/// Errors of the readers. Each one names the input, the line and the byte offset, and,
/// where there is one, the field.
public enum ReaderError: Error, CustomStringConvertible {
    case input(InputError)
    case malformedRecord(SourcePosition, field: String?, reason: String)
    case notAnObject(SourcePosition, found: String)
    case recordTooLarge(SourcePosition, limit: Int)
    case nestingTooDeep(SourcePosition, limit: Int)
    /// `cutShort`: the row has too few fields and ends the input without a line end.
    case raggedRow(SourcePosition, expected: Int, found: Int, cutShort: Bool = false)
    case badHeader(input: String, reason: String)
    /// An option that does not apply to this input (`--null` for JSON).
    case badOption(input: String, reason: String)

    public var position: SourcePosition? {
        switch self {
        case .input, .badHeader, .badOption: return nil
        case .malformedRecord(let position, _, _), .notAnObject(let position, _), .recordTooLarge(let position, _),
            .nestingTooDeep(let position, _), .raggedRow(let position, _, _, _):
            return position
        }
    }

    public var description: String {
        switch self {
        case .input(let error):
            return error.description
        case .malformedRecord(let position, let field, let reason):
            let fieldText = field.map { " in field \"\($0)\"" } ?? ""
            return "\(position): malformed record\(fieldText): \(reason)"
        case .notAnObject(let position, let found):
            return "\(position): each record must be a JSON object, found \(found); wrap values as {\"column\": value}"
        case .recordTooLarge(let position, let limit):
            return "\(position): a single record is larger than \(limit) bytes; raise --max-record-bytes if it is genuine, or check that the format is right (--format)"
        case .nestingTooDeep(let position, let limit):
            return "\(position): JSON nested deeper than \(limit) levels; such input is refused to keep the reader's stack bounded"
        case .raggedRow(let position, let expected, let found, let cutShort):
            if cutShort {
                return "\(position): row has \(found) fields but the header has \(expected), and the input ends on it without a line end: it was probably cut short (a truncated file or stream); import a complete copy"
            }
            return "\(position): row has \(found) fields but the header has \(expected); check the delimiter (--delimiter) and quoting on that line"
        case .badHeader(let input, let reason):
            return "\(input): bad header row: \(reason)"
        case .badOption(let input, let reason):
            return "\(input): \(reason)"
        }
    }
}

extension ReaderError {
    /// The input buffer does not count lines: readers give its errors the line of the
    /// record being read.
    func inRecord(startingOnLine line: Int) -> ReaderError {
        guard case .recordTooLarge(var position, let limit) = self, position.line == 0 else { return self }
        position.line = line
        return .recordTooLarge(position, limit: limit)
    }
}
