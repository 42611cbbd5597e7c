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
        let format: InputFormat
        if let chosen = options.format ?? InputFormat.fromExtension(input.name) {
            format = chosen
        } else {
            do {
                format = try detect(buffer)
            } catch {
                throw error.inRecord(startingOnLine: 1)
            }
        }
        switch format {
        case .jsonl: return (JSONLinesReader(buffer: buffer, options: options, namer: namer, keepRaw: keepRaw), format)
        case .json: return (JSONArrayReader(buffer: buffer, options: options, namer: namer, keepRaw: keepRaw), format)
        case .csv, .tsv:
            let reader = DelimitedReader(
                buffer: buffer, options: options, namer: namer, keepRaw: keepRaw,
                delimiter: options.delimiter ?? (format == .tsv ? 0x09 : UInt8(ascii: ",")))
            return (reader, format)
        }
    }

    /// The format of an input, as `make` would choose it.
    static func detect(_ buffer: InputBuffer) throws(ReaderError) -> InputFormat {
        var shift = 0
        while true {
            var index = buffer.start
            while index < buffer.recordWindowEnd {
                let byte = buffer.storage[index]
                if byte != 0x20 && byte != 0x0A && byte != 0x0D && byte != 0x09 { return InputFormat.fromFirstByte(byte) }
                index += 1
            }
            guard try buffer.refill(shift: &shift) else { return InputFormat.fromFirstByte(nil) }
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
