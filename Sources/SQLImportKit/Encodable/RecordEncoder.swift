import Foundation

/// Encodes one `Encodable` value as one record: its top-level properties become fields.
///
/// - Integers that fit Int64 are INTEGER; a `UInt64` above `Int64.max` is kept as exact
///   TEXT (SQLite has no unsigned 64-bit integer).
/// - `Double`/`Float` are REAL, `Bool` is 1/0, `String` is TEXT, nil is NULL.
/// - `Date` is ISO 8601 text, `UUID` its string, `Decimal` its exact text, `Data` base64.
/// - A nested struct or enum whose key `flattens` is flattened as `--flatten` reads
///   JSON: its fields fill columns by leaf or by prefix, an enum's case fills its case
///   columns (`NestedFields`). Synthesized `Codable` writes an enum case as
///   `{"note":{"_0":"x"}}`, which names the case `note`.
/// - Other nested values (arrays, dictionaries, structs of a JSON column) are compact
///   JSON text, as in JSON input.
struct RecordEncoder {
    let batch: RecordBatch
    let namer: ColumnNamer
    /// Whether the nested value of a top-level key is flattened.
    var flattens: (String) -> Bool = { _ in false }

    func encode<Value: Encodable>(_ value: Value) throws {
        let sink = FieldSink(batch: batch, namer: namer)
        sink.flattens = flattens
        batch.beginRow()
        do {
            try value.encode(to: TopLevelEncoder(sink: sink))
        } catch {
            batch.discardRow()
            throw error
        }
        batch.commitRow(line: batch.rowCount + 1, byteOffset: 0)
    }
}

/// Receives the fields of the record being encoded.
final class FieldSink {
    let batch: RecordBatch
    let namer: ColumnNamer
    var slot = 0
    var flattens: (String) -> Bool = { _ in false }
    /// Scratch for the field names of flattened values.
    private let keys = ByteStore(capacity: 64)
    private let jsonEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()

    init(batch: RecordBatch, namer: ColumnNamer) {
        self.batch = batch
        self.namer = namer
    }

    func set(_ key: String, _ cell: Cell) {
        let column = Array(key.utf8).withUnsafeBufferPointer { namer.column(for: $0, slot: slot, batch: batch) }
        slot += 1
        batch.set(column: column, cell)
    }

    /// Sets `value`'s fields under `key` when it is a nested object to flatten; false
    /// when it is not (the caller stores it as one value).
    func setFlattened<Value: Encodable>(_ key: String, _ value: Value) throws -> Bool {
        switch value {
        case is Date, is UUID, is Decimal, is Data, is URL: return false
        default: break
        }
        guard flattens(key) else { return false }
        let json = try jsonEncoder.encode(value)
        guard json.first == UInt8(ascii: "{") else { return false }
        try Array(json).withUnsafeBufferPointer { buffer in
            var scanner = JSONScanner(buffer, endIsFinal: true, flatten: true, keys: keys)
            do {
                try scanner.parseNestedObject(into: batch, namer: namer, prefix: key, slot: &slot)
            } catch {
                throw EncodingError.invalidValue(
                    value, EncodingError.Context(codingPath: [], debugDescription: "\(key) did not encode as a JSON object sqlimport can read"))
            }
        }
        return true
    }

    func text(_ text: String, kind: CellKind = .text) -> Cell {
        let start = batch.bytes.count
        batch.bytes.append(contentsOf: text.utf8)
        return Cell(kind: kind, payload: Int64(start), length: UInt32(batch.bytes.count - start))
    }

    func cell<Value: Encodable>(for value: Value) throws -> Cell {
        switch value {
        case let value as Date: return text(ISO8601DateFormatter().string(from: value))
        case let value as UUID: return text(value.uuidString)
        case let value as Decimal: return text(value.description, kind: .numberAsText)
        case let value as Data: return text(value.base64EncodedString())
        case let value as URL: return text(value.absoluteString)
        default: break
        }
        let json = try jsonEncoder.encode(value)
        switch json.first {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            return text(String(decoding: json, as: UTF8.self), kind: .json)
        case UInt8(ascii: "\""):
            return text(try JSONDecoder().decode(String.self, from: json))
        case UInt8(ascii: "t"): return .integer(1)
        case UInt8(ascii: "f"): return .integer(0)
        case UInt8(ascii: "n"), nil: return .null
        default:
            return json.withUnsafeBytes { bytes in
                if case .value(let integer) = NumberText.parseInteger(bytes) { return .integer(integer) }
                if let real = NumberText.parseDouble(bytes) { return .real(real) }
                return text(String(decoding: json, as: UTF8.self), kind: .numberAsText)
            }
        }
    }
}

private struct TopLevelEncoder: Encoder {
    let sink: FieldSink
    var codingPath: [CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(FieldContainer(sink: sink))
    }

    func unkeyedContainer() -> UnkeyedEncodingContainer {
        preconditionFailure("a record must encode as a keyed container (a struct or class with properties)")
    }

    func singleValueContainer() -> SingleValueEncodingContainer {
        preconditionFailure("a record must encode as a keyed container (a struct or class with properties)")
    }
}

private struct FieldContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let sink: FieldSink
    var codingPath: [CodingKey] { [] }

    mutating func encodeNil(forKey key: Key) throws { sink.set(key.stringValue, .null) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { sink.set(key.stringValue, .boolean(value)) }
    mutating func encode(_ value: String, forKey key: Key) throws { sink.set(key.stringValue, sink.text(value)) }
    mutating func encode(_ value: Double, forKey key: Key) throws { sink.set(key.stringValue, .real(value)) }
    mutating func encode(_ value: Float, forKey key: Key) throws { sink.set(key.stringValue, .real(Double(value))) }
    mutating func encode(_ value: Int, forKey key: Key) throws { sink.set(key.stringValue, .integer(Int64(value))) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { sink.set(key.stringValue, .integer(Int64(value))) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { sink.set(key.stringValue, .integer(Int64(value))) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { sink.set(key.stringValue, .integer(Int64(value))) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { sink.set(key.stringValue, .integer(value)) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try encode(UInt64(value), forKey: key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { sink.set(key.stringValue, .integer(Int64(value))) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { sink.set(key.stringValue, .integer(Int64(value))) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { sink.set(key.stringValue, .integer(Int64(value))) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws {
        if let exact = Int64(exactly: value) {
            sink.set(key.stringValue, .integer(exact))
        } else {
            sink.batch.numbersKeptAsText += 1
            sink.set(key.stringValue, sink.text(String(value), kind: .numberAsText))
        }
    }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        if try sink.setFlattened(key.stringValue, value) { return }
        sink.set(key.stringValue, try sink.cell(for: value))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        preconditionFailure("encode nested values with encode(_:forKey:); they are stored as JSON text")
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> UnkeyedEncodingContainer {
        preconditionFailure("encode nested values with encode(_:forKey:); they are stored as JSON text")
    }
    mutating func superEncoder() -> Encoder { TopLevelEncoder(sink: sink) }
    mutating func superEncoder(forKey key: Key) -> Encoder { TopLevelEncoder(sink: sink) }
}
