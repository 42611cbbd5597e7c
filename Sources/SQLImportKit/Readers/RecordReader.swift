/// Reads records from one input into batches.
protocol RecordReader: AnyObject {
    /// Appends records to `batch` until it holds `maxRows` rows or `maxBytes` bytes of
    /// text, or the input ends. Returns false once the input is exhausted.
    func fill(_ batch: RecordBatch, maxRows: Int, maxBytes: Int) throws(ReaderError) -> Bool
    /// Decompressed bytes consumed so far.
    var bytesConsumed: Int64 { get }
}

/// Opens the reader an input calls for.
enum RecordReaders {
    static func make(input: InputSource, options: ReaderOptions, namer: ColumnNamer, keepRaw: Bool) throws(ReaderError) -> (RecordReader, InputFormat) {
        let buffer = InputBuffer(input: input, maxRecordBytes: options.maxRecordBytes, chunkSize: options.bufferChunkBytes)
        try buffer.skipByteOrderMark()
        var format: InputFormat
        if let chosen = options.format {
            format = chosen
        } else {
            // The content decides where it is JSON: a `.csv` holding JSON Lines is read as
            // JSON Lines (the run warns that the name and the content disagree).
            let content: InputFormat
            do {
                content = try detect(buffer)
            } catch {
                throw error.inRecord(startingOnLine: 1)
            }
            switch (InputFormat.fromExtension(input.name), content) {
            case (nil, _), (.csv, .jsonl), (.csv, .json), (.tsv, .jsonl), (.tsv, .json), (.jsonl, .json): format = content
            case (let named?, _): format = named
            }
        }
        if options.nullText != nil, format == .json || format == .jsonl {
            throw ReaderError.badOption(
                input: input.name, reason: "--null applies to CSV and TSV fields; in \(format.rawValue.uppercased()) a null is written null, and a string is kept as it is. Drop --null for this input")
        }
        if options.delimiter != nil || !options.hasHeader, format == .json || format == .jsonl {
            throw ReaderError.badOption(
                input: input.name, reason: "--delimiter and --no-header apply to CSV and TSV, and this input holds \(format.rawValue.uppercased()); drop them for this input")
        }
        switch format {
        case .jsonl: return (JSONLinesReader(buffer: buffer, options: options, namer: namer, keepRaw: keepRaw), format)
        case .json: return (JSONArrayReader(buffer: buffer, options: options, namer: namer, keepRaw: keepRaw), format)
        case .csv, .tsv:
            var delimiter = options.delimiter ?? (format == .tsv ? 0x09 : UInt8(ascii: ","))
            if options.delimiter == nil && options.format == nil {
                delimiter = try sniffDelimiter(buffer, preferring: delimiter) ?? delimiter
                format = delimiter == 0x09 ? .tsv : .csv
            }
            let reader = DelimitedReader(buffer: buffer, options: options, namer: namer, keepRaw: keepRaw, delimiter: delimiter)
            return (reader, format)
        }
    }

    static let delimiterCandidates: [UInt8] = [UInt8(ascii: ","), UInt8(ascii: ";"), 0x09, UInt8(ascii: "|")]

    /// The field separator of delimited text, from its header and first records: among
    /// `,` `;` tab `|`, the one that appears (outside quotes) in the header and the same
    /// number of times in each following line of the first 64 KiB, the most often; nil
    /// when none does.
    /// On a tie, `preferred` (the extension's) wins.
    static func sniffDelimiter(_ buffer: InputBuffer, preferring preferred: UInt8) throws(ReaderError) -> UInt8? {
        var shift = 0
        let window = min(1 << 16, buffer.maxRecordBytes)
        while buffer.end - buffer.start < window, !buffer.atEOF { guard try buffer.refill(shift: &shift) else { break } }
        let end = min(buffer.end, buffer.start + window)
        var lines: [[Int]] = []
        var counts = [Int](repeating: 0, count: delimiterCandidates.count)
        var inQuotes = false
        var index = buffer.start
        while index < end && lines.count < 21 {
            let byte = buffer.storage[index]
            if byte == UInt8(ascii: "\"") {
                inQuotes.toggle()
            } else if !inQuotes, byte == 0x0A {
                lines.append(counts)
                counts = [Int](repeating: 0, count: delimiterCandidates.count)
            } else if !inQuotes, let slot = delimiterCandidates.firstIndex(of: byte) {
                counts[slot] += 1
            }
            index += 1
        }
        // The last line of a short input counts too.
        if index == buffer.end && buffer.atEOF && counts.contains(where: { $0 > 0 }) { lines.append(counts) }
        guard let header = lines.first else { return nil }
        var best: (slot: Int, count: Int)?
        for slot in delimiterCandidates.indices where header[slot] > 0 {
            guard lines.dropFirst().allSatisfy({ $0[slot] == header[slot] }) else { continue }
            let isPreferred = delimiterCandidates[slot] == preferred
            if best == nil || header[slot] > best!.count
                || header[slot] == best!.count && isPreferred
            {
                best = (slot, header[slot])
            }
        }
        return best.map { delimiterCandidates[$0.slot] }
    }

    /// The format of an input, as `make` would choose it: by its first byte other than
    /// white space, but text whose next byte no JSON could hold there is CSV: a header
    /// `[group],v` or `{id},v` (read as JSON, it failed with "expected a JSON object").
    static func detect(_ buffer: InputBuffer) throws(ReaderError) -> InputFormat {
        var shift = 0
        var first: UInt8?
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }
        while true {
            var index = buffer.start
            while index < buffer.recordWindowEnd {
                let byte = buffer.storage[index]
                index += 1
                if isSpace(byte) { continue }
                guard let first else {
                    first = byte
                    if byte != UInt8(ascii: "[") && byte != UInt8(ascii: "{") { return InputFormat.fromFirstByte(byte) }
                    continue
                }
                let holdsJSON = first == UInt8(ascii: "{")
                    ? byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "}")
                    : "{[]\"-0123456789tfn".utf8.contains(byte)
                return holdsJSON ? InputFormat.fromFirstByte(first) : .csv
            }
            // The refill keeps the window's bytes and adds more: scanned again.
            guard try buffer.refill(shift: &shift) else { return InputFormat.fromFirstByte(first) }
            first = nil
        }
    }
}

extension JSONScanner.Failure {
    func readerError(input: String, recordLine: Int, lineOf: (Int) -> Int, offsetOf: (Int) -> Int64, field: String?) -> ReaderError {
        switch self {
        case .needMoreData:
            return .malformedRecord(SourcePosition(input: input, line: recordLine, byteOffset: offsetOf(0)), field: field, reason: "unexpected end of input")
        case .syntax(let reason, let at):
            return .malformedRecord(SourcePosition(input: input, line: lineOf(at), byteOffset: offsetOf(at)), field: field, reason: reason)
        case .notAnObject(let found, _):
            return .notAnObject(SourcePosition(input: input, line: recordLine, byteOffset: offsetOf(0)), found: found)
        case .tooDeep(let limit, let at):
            return .nestingTooDeep(SourcePosition(input: input, line: lineOf(at), byteOffset: offsetOf(at)), limit: limit)
        }
    }
}
