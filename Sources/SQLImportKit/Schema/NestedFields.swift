/// Nested objects under `--flatten`, and the two shapes SQLiteData gives them in a table
/// (seed 004):
///
/// - **Column groups.** A `@Selection struct Timestamps { createdAt; updatedAt }` stored
///   as the field `timestamps` has the columns `createdAt` and `updatedAt`, without a
///   prefix. `{"timestamps":{"createdAt":…}}` fills `createdAt` (*by leaf*).
/// - **Prefixed columns.** `{"meta":{"color":…}}` fills `meta_color` (*by prefix*), the
///   name a table created by `--flatten` gets.
/// - **Enum tables** (single-table inheritance). `enum Kind { case link(URL), note(String) }`
///   is one nullable column per case, exactly one of them non-null. `{"kind":{"note":"x"}}`
///   (or Swift `Codable`'s `{"kind":{"note":{"_0":"x"}}}`) fills `note` and sets every
///   other column of the group to NULL, so that a row switching from `link` to `note`
///   never holds both (`EnumGroup`).
///
/// The reader names a flattened field by its path, the components joined by
/// `FieldPath.separator`; the mapping onto table columns happens here, once the table is
/// known.
public enum FlattenNaming: String, Sendable, CaseIterable {
    /// By leaf where the table has the leaf's column, by prefix where it has that one;
    /// both is an ambiguity, an error naming the two columns.
    case auto
    /// Always by leaf (`createdAt`).
    case leaf
    /// Always by prefix (`timestamps_createdAt`).
    case prefix
}

/// The path of a flattened field, as the reader names it.
enum FieldPath {
    /// Joins path components in a field's name. A control character: JSON keys cannot
    /// hold it unescaped, and no real key escapes it.
    static let separator: UInt8 = 0x1F
    static let separatorString = "\u{1F}"

    /// The components of a field name; one for a field that was not nested.
    static func components(_ name: String) -> [String] {
        name.contains(separatorString) ? name.components(separatedBy: separatorString) : [name]
    }

    /// The components without Swift `Codable`'s `_0` wrapper of an enum case's unnamed
    /// associated value (`{"note":{"_0":"x"}}` is the case `note` holding `"x"`).
    static func meaningful(_ components: [String]) -> [String] {
        guard components.count > 1 else { return components }
        return [components[0]] + components.dropFirst().filter { $0 != "_0" }
    }

    /// The field's column name by prefix: `meta_color`; the name itself when not nested.
    static func prefixName(_ name: String) -> String {
        let parts = components(name)
        return parts.count == 1 ? name : meaningful(parts).joined(separator: "_")
    }

    /// True for the field of an empty nested object (`{"kind":{"none":{}}}` is
    /// `kind.none.`): it fills no column, but tells that the case `none` is present.
    static func isPresenceMarker(_ name: String) -> Bool {
        name.hasSuffix(separatorString)
    }

    /// `timestamps.createdAt`, for messages.
    static func dotted(_ name: String) -> String {
        components(name).joined(separator: ".")
    }
}

/// An enum's case columns (`--enum kind=link,note,image`): a record that sets one case
/// sets the others to NULL, in every strategy and every merge policy (under `coalesce`
/// too: a case switch is not a missing value).
public struct EnumGroup: Sendable, Equatable, CustomStringConvertible {
    /// The record's field that holds the case object (`kind`).
    public var field: String
    /// Every column of every case, as the table names them. A case with a grouped
    /// payload (`case image(Image)` with `caption` and `url`) contributes each of them.
    public var columns: [String]

    public init(field: String, columns: [String]) {
        self.field = field
        self.columns = columns
    }

    /// Parses `kind=link,note,image`.
    public init(argument: String) throws(NestedFieldError) {
        let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2, !parts[0].isEmpty else { throw .invalidEnumOption(argument) }
        let columns = parts[1].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard !columns.isEmpty, !columns.contains(where: \.isEmpty) else { throw .invalidEnumOption(argument) }
        self.init(field: parts[0], columns: columns)
    }

    /// `kind=link,note,image`, as `--enum` takes it.
    public var description: String { "\(field)=\(columns.joined(separator: ","))" }
}

/// Maps flattened fields onto a table's columns and recognises enum groups.
struct NestedFields {
    let schema: TableSchema
    let naming: FlattenNaming

    /// The table column a flattened field fills, or nil when the table has none (the
    /// field is then unknown: `--alter` adds its prefixed name).
    /// - Throws: `NestedFieldError.ambiguous` when, under `auto`, the table has both the
    ///   leaf's column and the prefixed one.
    func column(for name: String) throws(NestedFieldError) -> Int? {
        if FieldPath.isPresenceMarker(name) { return nil }
        let parts = FieldPath.meaningful(FieldPath.components(name))
        guard parts.count > 1 else { return writable(parts[0]) }
        let leaf = parts[parts.count - 1]
        let prefix = parts.joined(separator: "_")
        switch naming {
        case .leaf: return writable(leaf)
        case .prefix: return writable(prefix)
        case .auto:
            let byLeaf = writable(leaf)
            let byPrefix = writable(prefix)
            if let byLeaf, let byPrefix, byLeaf != byPrefix {
                throw .ambiguous(
                    field: FieldPath.dotted(name), table: schema.name,
                    candidates: [schema.columns[byLeaf].name, schema.columns[byPrefix].name])
            }
            return byLeaf ?? byPrefix
        }
    }

    private func writable(_ name: String) -> Int? {
        guard let index = schema.columnIndex(named: name), schema.columns[index].isWritable else { return nil }
        return index
    }

    /// The case a flattened field belongs to, when its first component is `group`'s
    /// field: `kind.image._0.caption` is the case `image`.
    /// A field inside a group is named by its dotted path: `meta.kind` for
    /// `{"meta":{"kind":{"note":…}}}`.
    static func caseName(of name: String, in field: String) -> String? {
        let parts = FieldPath.meaningful(FieldPath.components(name))
        let fieldParts = parts[0].sqliteFolded == field.sqliteFolded ? [field] : field.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        // `{"kind":{}}` (the marker `kind` + separator) names no case.
        guard parts.count > fieldParts.count, zip(parts, fieldParts).allSatisfy({ $0.sqliteFolded == $1.sqliteFolded }), !parts[fieldParts.count].isEmpty
        else { return nil }
        return parts[fieldParts.count]
    }

    /// Whether field `name` is a whole case of the enum at `field` (`kind.video`, or
    /// `kind.video._0`), not a field inside a case.
    static func isWholeCase(_ name: String, in field: String) -> Bool {
        guard caseName(of: name, in: field) != nil else { return false }
        return FieldPath.meaningful(FieldPath.components(name)).count == field.split(separator: ".", omittingEmptySubsequences: false).count + 1
    }

    /// Enum groups a sample shows, among the nested `fields` (lowercased first
    /// components) that no `--enum` or `--group` names. A field is a candidate when its
    /// fields fill nullable columns by leaf name (as SQLiteData names case columns; by
    /// prefix in a table the run created) that nothing else in the input fills.
    /// - Written the way Swift `Codable` writes an enum case (`{"note":{"_0":…}}`), it
    ///   is an enum of those columns, unless the table has other nullable columns that
    ///   the input leaves alone, which could be cases the sample did not show: the run
    ///   then stops and asks for `--enum` rather than guess which to clear.
    /// - Written plainly with one key per record and two keys or more seen, it may be an
    ///   enum or a column group whose nil fields `JSONEncoder` left out: the run stops and
    ///   asks for `--enum` or `--group`.
    /// - Anything else is a column group: nothing is cleared.
    ///
    /// - Parameters:
    ///   - fieldNames: the input's field names (paths) by column number.
    ///   - tableColumnOfInput: each field's table column, nil when it has none.
    ///   - createdByRun: the run created the table (by prefixed names).
    ///   - presence: calls its argument with each sampled record's non-null fields.
    /// - Returns: the enums, and every candidate field decided (enum or group).
    static func inferEnums(
        schema: TableSchema, fieldNames: [String], tableColumnOfInput: [Int?], fields: Set<NameKey>, createdByRun: Bool,
        presence: ((Set<Int>) -> Void) -> Void
    ) throws(NestedFieldError) -> (enums: [EnumGroup], decided: Set<NameKey>, undecided: [NameKey: UndecidedField]) {
        var members: [NameKey: [(input: Int, caseName: String, column: Int?)]] = [:]
        var order: [NameKey] = []
        var evidence = Set<NameKey>()
        var namedOtherwise = Set<NameKey>()
        var filledBy: [Int: Set<NameKey>] = [:]  // table column → fields (folded) filling it
        for (input, name) in fieldNames.enumerated() {
            let raw = FieldPath.components(name)
            let parts = FieldPath.meaningful(raw)
            let field = parts[0].sqliteFolded
            let column = input < tableColumnOfInput.count ? tableColumnOfInput[input] : nil
            if let column { filledBy[column, default: []].insert(parts.count > 1 ? field : NameKey("\u{0}" + name)) }
            // (`{"kind":{}}`, the marker `kind` + separator, names no case.)
            guard parts.count > 1, fields.contains(field), !parts[1].isEmpty else { continue }
            if members[field] == nil { order.append(field) }
            members[field, default: []].append((input, parts[1], column))
            if raw.count > 2 && raw[2] == "_0" { evidence.insert(field) }
            if let column {
                // A table the run creates names cases by prefix; an existing one by leaf
                // (SQLiteData's), or by prefix when an earlier run created it.
                let name = schema.columns[column].name.sqliteFolded
                let prefixed = parts.filter { !$0.isEmpty }.joined(separator: "_").sqliteFolded
                if name != prefixed && (createdByRun || name != parts[parts.count - 1].sqliteFolded) { namedOtherwise.insert(field) }
            }
        }
        guard !order.isEmpty else { return ([], [], [:]) }
        var casesSeen: [NameKey: Set<String>] = [:]
        var oneCaseEach = Set(order)
        presence { present in
            for field in order {
                var cases = Set<String>()
                for member in members[field]! where present.contains(member.input) { cases.insert(member.caseName) }
                if cases.count > 1 { oneCaseEach.remove(field) }
                casesSeen[field, default: []].formUnion(cases)
            }
        }
        var enums: [EnumGroup] = []
        var undecided: [NameKey: UndecidedField] = [:]
        for field in order {
            let columns = Set(members[field]!.compactMap(\.column))
            guard !columns.isEmpty, !namedOtherwise.contains(field),
                columns.allSatisfy({ isCaseColumn($0, in: schema) && filledBy[$0] == [field] })
            else { continue }
            let name = FieldPath.components(fieldNames[members[field]![0].input])[0]
            let caseColumns = columns.sorted().map { schema.columns[$0].name }
            // Nullable columns the input leaves alone may be cases it did not show.
            let others = schema.columns.indices.filter { isCaseColumn($0, in: schema) && filledBy[$0] == nil }
            let all = (columns.sorted() + others).sorted().map { schema.columns[$0].name }
            let seen = casesSeen[field, default: []].sorted()
            if evidence.contains(field) {
                if !others.isEmpty {
                    throw .enumNeedsDeclaring(field: name, seen: seen, caseColumns: caseColumns, columns: all, table: schema.name)
                }
                enums.append(EnumGroup(field: name, columns: caseColumns))
            } else if oneCaseEach.contains(field) && seen.count >= 2 {
                throw .enumOrGroup(field: name, seen: seen, columns: all, table: schema.name)
            } else if oneCaseEach.contains(field) {
                // One key so far: a second one in a later batch is the same question.
                undecided[field] = UndecidedField(name: name, seen: Set(seen), columns: all)
            }
        }
        return (enums, Set(order), undecided)
    }

    /// A plainly written field whose records held one key each, and only one key so far:
    /// a column group until another key shows it may be an enum (`inferEnums`).
    struct UndecidedField {
        var name: String
        var seen: Set<String>
        var columns: [String]
    }

    /// Calls its argument with the non-null fields of each record of `batch`
    /// (`inferEnums`' `presence`).
    static func presence(in batch: RecordBatch) -> ((Set<Int>) -> Void) -> Void {
        { visit in
            for row in 0 ..< batch.rowCount {
                var present = Set<Int>()
                for column in 0 ..< batch.rowEnd(row) - batch.rowStarts[row] {
                    let kind = batch.cell(row: row, column: column).kind
                    if kind != .absent && kind != .null { present.insert(column) }
                }
                visit(present)
            }
        }
    }

    /// A column an enum case may fill: nullable, writable, not a key.
    static func isCaseColumn(_ index: Int, in schema: TableSchema) -> Bool {
        let column = schema.columns[index]
        return !column.notNull && column.isWritable && column.primaryKeyPosition == 0
    }
}

/// Errors of nested fields and enum groups. Each says how to fix the problem.
public enum NestedFieldError: Error, Sendable, CustomStringConvertible {
    /// Under `--flatten` (auto), the table has both columns a nested field could fill.
    case ambiguous(field: String, table: String, candidates: [String])
    /// `--enum` that is not `FIELD=COL,COL[,...]`.
    case invalidEnumOption(String)
    /// `--enum` names a column the table lacks, or one that cannot hold NULL.
    case badEnumColumn(group: String, column: String, table: String, reason: String)
    /// A record holds two cases of one enum.
    case twoCases(SourcePosition, field: String, cases: [String])
    /// A field under an enum's field fills no column of the enum (`path` is dotted);
    /// `lacking` names the table when it has no column for the field at all.
    case unknownCase(SourcePosition, path: String, group: String, lacking: String? = nil)
    /// Two nested fields (or one and a plain field) fill one column.
    case sameColumn(fields: [String], column: String, table: String, prefixHelps: Bool, at: String? = nil)
    /// The sample looks like an enum, but the table has more nullable columns beside
    /// its cases: which of them to clear is not guessed.
    case enumNeedsDeclaring(field: String, seen: [String], caseColumns: [String], columns: [String], table: String)
    /// One key per record, several seen, written plainly: an enum or a column group.
    case enumOrGroup(field: String, seen: [String], columns: [String], table: String)
    /// `--enum` declares one field twice.
    case declaredTwice(field: String)
    /// A declared enum's or group's field holding null or a plain value.
    case groupNotAnObject(SourcePosition, field: String, isEnum: Bool)
    /// A case written as Swift `Codable` writes one, inside a column group.
    case enumInsideGroup(SourcePosition, path: String, field: String)
    /// `{"meta":{}}` under `--flatten`, into a table with a column `meta`.
    case emptyObjectForColumn(field: String, column: String, table: String)
    /// A record holds a case and also fills another case's column directly.
    case caseAndColumn(SourcePosition, field: String, column: String, group: String)

    public var description: String {
        switch self {
        case .emptyObjectForColumn(let field, let column, let table):
            return "field \(field) is an empty object, which --flatten spreads into no column, while \(SQLIdentifier.quote(table)) has the column \(SQLIdentifier.quote(column)); drop --flatten to store objects as JSON text there, or pass --group \(field) if its fields are columns"
        case .ambiguous(let field, let table, let candidates):
            return "field \(field) could fill column \(SQLIdentifier.quote(candidates[0])) (by its leaf name) or \(SQLIdentifier.quote(candidates[1])) (by its prefixed name) of \(SQLIdentifier.quote(table)); pass --flatten-by leaf or --flatten-by prefix to choose"
        case .invalidEnumOption(let text):
            return "--enum \(text): expected FIELD=COLUMN,COLUMN[,...] naming the field that holds the case and every column of every case, for example --enum kind=link,note,image"
        case .badEnumColumn(let group, let column, let table, let reason):
            return "--enum \(group): column \(SQLIdentifier.quote(column)) of \(SQLIdentifier.quote(table)) \(reason); list only the nullable columns that hold the enum's cases"
        case .twoCases(let position, let field, let cases):
            return "\(position): field \(field) holds the cases \(cases.joined(separator: " and ")); an enum value has exactly one case. Keep one of them in the record, pass --on-error skip to set such records aside, or --group \(field) if its fields are columns that a record may fill together"
        case .unknownCase(let position, let path, let group, let lacking?):
            return "\(position): field \(path) fills no column of the enum \(group), and \(SQLIdentifier.quote(lacking)) has no column for it (--alter adds none to an enum, whose other cases it would have to clear); add a nullable column for it to the table and to --enum, or fix the record"
        case .unknownCase(let position, let path, let group, nil):
            return "\(position): field \(path) fills no column of the enum \(group): no column of the enum takes it (its case, or this field of its case, has none); add its column to --enum, or fix the record"
        case .sameColumn(let fields, let column, let table, let prefixHelps, let position):
            return "\(position.map { "\($0): " } ?? "")fields \(fields.joined(separator: " and ")) both fill column \(SQLIdentifier.quote(column)) of \(SQLIdentifier.quote(table)); "
                + (prefixHelps ? "pass --flatten-by prefix to map nested fields by their prefixed names, or rename one in the input" : "rename one in the input")
        case .enumNeedsDeclaring(let field, let seen, let caseColumns, let columns, let table):
            return "field \(field) is written as Swift Codable writes an enum (cases seen: \(seen.joined(separator: ", "))), and \(SQLIdentifier.quote(table)) has nullable columns the input leaves alone, which may be cases it did not show and which a case switch must clear; declare the enum's columns with --enum \(field)=\(columns.joined(separator: ",")) (keep only the enum's), --enum \(field)=\(caseColumns.joined(separator: ",")) to clear none of the others, or --group \(field) if it is not an enum"
        case .enumOrGroup(let field, let seen, let columns, let table):
            return "field \(field) holds one key per record (\(seen.joined(separator: ", "))): an enum, whose case switch must clear the other cases' columns, or a column group whose nil fields were left out, whose columns a record must not clear; pass --enum \(field)=\(columns.joined(separator: ",")) (keep only the enum's columns of \(SQLIdentifier.quote(table))) or --group \(field)"
        case .groupNotAnObject(let position, let field, let isEnum):
            let what = isEnum ? "--enum \(field) expects an object holding one case ({\"case\": value})" : "--group \(field) expects an object of its columns"
            return "\(position): field \(field) is null, a plain value or an array, where \(what); sqlimport does not guess which columns that clears. Leave the field out of such records (their columns are left alone), pass --ignore-unknown to drop it, or --on-error skip to set such records aside"
        case .enumInsideGroup(let position, let path, let field):
            return "\(position): field \(path) is written as Swift Codable writes an enum case, inside a group, where sqlimport does not recognise enums by itself (a record switching case would keep the old one); declare the enum's columns with --enum \(field)=COL,COL,..., or pass --group \(field) if it is not an enum"
        case .declaredTwice(let field):
            return "--enum names the field \(field) twice; give all of its columns in one --enum \(field)=COL,COL,..."
        case .caseAndColumn(let position, let field, let column, let group):
            return "\(position): field \(field) holds a case of the enum \(group), and the record also fills its column \(SQLIdentifier.quote(column)) directly; give the value inside \(field) only"
        }
    }
}

/// What `--flatten` would make of a sample of an input against a table, for
/// `sqlimport inspect --sample`: each nested field's columns, and the enums.
public struct NestedFieldsSample: Sendable {
    /// A nested field and the columns its fields fill (`nil`: no column; `--alter` adds
    /// the prefixed name).
    public struct Group: Sendable {
        public var field: String
        public var columns: [(path: String, column: String?)]
        /// `leaf`, `prefix`, or both when its fields differ.
        public var naming: String
    }

    public var records = 0
    public var groups: [Group] = []
    /// `--enum` groups and the ones the sample shows.
    public var enums: [EnumGroup] = []
    /// Why the mapping would stop a run (an ambiguity, an enum to declare), when it would.
    public var problem: String?

    /// Reads the first `records` records of `input` as `--flatten` does and maps their
    /// nested fields onto `schema`.
    public static func read(
        input: String, reader: ReaderOptions = ReaderOptions(), schema: TableSchema, naming: FlattenNaming = .auto,
        declared: [EnumGroup] = [], groups: [String] = [], records: Int = 1000
    ) throws -> NestedFieldsSample {
        var options = reader
        options.flatten = true
        let batchReader = BatchReader(paths: [input], options: options, rowsPerBatch: records, bytesPerBatch: 64 << 20)
        batchReader.start()
        defer { batchReader.stop() }
        var batch: RecordBatch?
        var names: [String] = []
        loop: while let item = batchReader.next() {
            switch item {
            case .opened: continue
            case .batch(let first):
                batch = first
                names = first.newColumns
                break loop
            case .failed(let error): throw error
            case .finished: break loop
            }
        }
        var sample = NestedFieldsSample()
        guard let batch else { return sample }
        sample.records = batch.rowCount
        let nested = NestedFields(schema: schema, naming: naming)
        var columnOfInput: [Int?] = []
        var order: [String] = []
        var byField: [String: Group] = [:]
        for name in names {
            var column: Int?
            do {
                column = try nested.column(for: name)
            } catch {
                sample.problem = sample.problem ?? error.description
            }
            columnOfInput.append(column)
            let parts = FieldPath.meaningful(FieldPath.components(name))
            guard parts.count > 1 else { continue }
            if byField[parts[0]] == nil {
                order.append(parts[0])
                byField[parts[0]] = Group(field: parts[0], columns: [], naming: "")
            }
            let columnName = column.map { schema.columns[$0].name }
            byField[parts[0]]!.columns.append((FieldPath.dotted(name), columnName))
            let kind = columnName.map { $0.sqliteFolded == parts.joined(separator: "_").sqliteFolded ? "prefix" : "leaf" }
            if let kind, !byField[parts[0]]!.naming.contains(kind) {
                byField[parts[0]]!.naming += byField[parts[0]]!.naming.isEmpty ? kind : " and \(kind)"
            }
        }
        sample.groups = order.map { byField[$0]! }
        sample.enums = declared
        do {
            let declaredFields = Set(declared.map { $0.field.sqliteFolded } + groups.map { $0.sqliteFolded })
            let fields = Set(names.map { FieldPath.components($0) }.filter { $0.count > 1 }.map { $0[0].sqliteFolded }).subtracting(declaredFields)
            sample.enums += try NestedFields.inferEnums(
                schema: schema, fieldNames: names, tableColumnOfInput: columnOfInput, fields: fields, createdByRun: false,
                presence: NestedFields.presence(in: batch)
            ).enums
        } catch {
            sample.problem = sample.problem ?? error.description
        }
        return sample
    }
}
