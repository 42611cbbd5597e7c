import Foundation

/// Enum groups (`EnumGroup`) in a run: declared with `--enum`, or recognised as each
/// nested field first appears (`NestedFields.inferEnums`); each record's case checked.
extension ImportRun {
    /// Checks `--enum` against the table, before any row is written.
    func resolveDeclaredEnums(schema: TableSchema) throws {
        var seen = Set<NameKey>()
        for declared in options.enumGroups {
            guard seen.insert(declared.field.sqliteFolded).inserted else { throw NestedFieldError.declaredTwice(field: declared.field) }
            if options.columnGroups.contains(where: { $0.sqliteFolded == declared.field.sqliteFolded }) {
                throw ImportError.conflictingOptions(
                    "--enum \(declared) and --group \(declared.field) name the same field; it is an enum (a case clears the others) or a column group (nothing is cleared): keep one")
            }
            var group = declared
            group.columns = try declared.columns.map { name in
                guard let index = schema.columnIndex(named: name) else {
                    throw NestedFieldError.badEnumColumn(group: declared.description, column: name, table: table, reason: "does not exist")
                }
                guard NestedFields.isCaseColumn(index, in: schema) else {
                    throw NestedFieldError.badEnumColumn(
                        group: declared.description, column: name, table: table, reason: "cannot hold NULL, or is a key or generated column")
                }
                return schema.columns[index].name
            }
            enumGroups.append(group)
        }
        summary.enumGroups = enumGroups.map(\.description)
        decidedNestedFields.formUnion(options.enumGroups.map { $0.field.sqliteFolded })
        decidedNestedFields.formUnion(options.columnGroups.map { $0.sqliteFolded })
    }

    /// Ties the input columns from `first` on to the enum groups, recognising enums
    /// among nested fields seen for the first time in `batch`. A field of a group must
    /// fill one of the group's columns; a field outside it that fills one is noted, so
    /// that a record cannot hold a case and another case's value at once.
    func mapEnumCases(from first: Int, of batch: RecordBatch, schema: TableSchema) throws {
        guard options.reader.flatten else { return }
        try refusePlainEnumsInsideGroups(in: batch, schema: schema)
        var fresh = Set<NameKey>()
        for input in first ..< fieldNames.count {
            let parts = FieldPath.components(fieldNames[input])
            // A Codable enum case inside a group (`meta.kind.note._0`) is no enum the
            // inference below sees: refused unless declared, as `--enum meta.kind=…`.
            if let zero = parts.firstIndex(of: "_0"), zero >= 3 {
                let field = parts[..<(zero - 1)].joined(separator: ".")
                let declared = options.enumGroups.contains { NestedFields.caseName(of: fieldNames[input], in: $0.field) != nil }
                if !declared && !options.columnGroups.contains(where: { $0.sqliteFolded == field.sqliteFolded }) {
                    throw NestedFieldError.enumInsideGroup(firstPosition(of: input, in: batch), path: FieldPath.dotted(fieldNames[input]), field: field)
                }
            }
            if parts.count > 1, !decidedNestedFields.contains(parts[0].sqliteFolded) { fresh.insert(parts[0].sqliteFolded) }
            // A field read as a group from records of one key each, now with another key
            // (`{"kind":{"link":…}}` for a batch, then `{"kind":{"note":…}}`): an enum or a
            // group, as if both had been in the first batch.
            // A record holding the new key with another one shows a group (SQLiteData's
            // `Timestamps` once an optional `updatedAt` is set), which stays one.
            let meaningful = FieldPath.meaningful(parts)
            if meaningful.count > 1, !meaningful[1].isEmpty, let watched = undecidedNestedFields[meaningful[0].sqliteFolded],
                !watched.seen.contains(meaningful[1])
            {
                let field = meaningful[0].sqliteFolded
                let others = fieldNames.indices.filter { other in
                    other != input && FieldPath.meaningful(FieldPath.components(fieldNames[other])).first?.sqliteFolded == field
                        && FieldPath.meaningful(FieldPath.components(fieldNames[other])).dropFirst().first.map { $0 != meaningful[1] && !$0.isEmpty } == true
                }
                let together = (0 ..< batch.rowCount).contains { row in
                    let kind = batch.cell(row: row, column: input).kind
                    guard kind != .absent && kind != .null else { return false }
                    return others.contains { batch.cell(row: row, column: $0).kind != .absent && batch.cell(row: row, column: $0).kind != .null }
                }
                if together {
                    undecidedNestedFields[field] = nil
                    continue
                }
                throw NestedFieldError.enumOrGroup(
                    field: watched.name, seen: (watched.seen.union([meaningful[1]])).sorted(), columns: watched.columns, table: schema.name)
            }
        }
        if !fresh.isEmpty {
            let found = try NestedFields.inferEnums(
                schema: schema, fieldNames: fieldNames, tableColumnOfInput: tableColumnOfInput, fields: fresh, createdByRun: createdTable,
                presence: NestedFields.presence(in: batch))
            decidedNestedFields.formUnion(found.decided)
            undecidedNestedFields.merge(found.undecided) { _, new in new }
            for group in found.enums {
                summary.warnings.append(
                    "field \(group.field) is written as Swift Codable writes an enum, so it was read as one: a record's case fills its columns and sets the others of \(group.columns.joined(separator: ", ")) to NULL (pass --enum \(group) to declare it)")
            }
            enumGroups += found.enums
            summary.enumGroups = enumGroups.map(\.description)
        }
        guard !enumGroups.isEmpty else { return }
        for input in first ..< fieldNames.count {
            let column = tableColumnOfInput[input].map { schema.columns[$0].name.sqliteFolded }
            for (index, group) in enumGroups.enumerated() {
                if let caseName = NestedFields.caseName(of: fieldNames[input], in: group.field) {
                    if let column, !group.columns.contains(where: { $0.sqliteFolded == column }) {
                        guard options.onError == .skip else {
                            throw NestedFieldError.unknownCase(
                                firstPosition(of: input, in: batch), path: FieldPath.dotted(fieldNames[input]), group: group.description)
                        }
                        enumUnknownCaseOfInput[input] = index
                        continue
                    }
                    enumCaseOfInput[input] = (index, caseName)
                } else if let column, group.columns.contains(where: { $0.sqliteFolded == column }) {
                    enumColumnOfDirectInput[input] = index
                }
            }
        }
        if let session { configureEnumGroups(session, schema: schema) }
    }

    /// An object inside a group (`{"meta":{"kind":{"link":…}}}`) holding one key per
    /// record, two keys or more seen, may be an enum (whose case switch must clear the
    /// other cases) or a group whose nil fields were left out: the run stops and asks,
    /// as for a field at the top (`NestedFieldError.enumOrGroup`), unless `--enum` or
    /// `--group` names its path. (Applied as a group, a case switch kept the old case.)
    func refusePlainEnumsInsideGroups(in batch: RecordBatch, schema: TableSchema) throws {
        var children: [NameKey: [(input: Int, child: String)]] = [:]
        var paths: [NameKey: String] = [:]
        for input in fieldNames.indices where input < tableColumnOfInput.count && tableColumnOfInput[input] != nil {
            let parts = FieldPath.meaningful(FieldPath.components(fieldNames[input]))
            // (A field of an enum, at the top or declared by its path, is a case's.)
            guard parts.count >= 3, !enumGroups.contains(where: { NestedFields.caseName(of: fieldNames[input], in: $0.field) != nil }) else { continue }
            for length in 2 ..< parts.count where !parts[length].isEmpty {
                let path = parts[..<length].joined(separator: ".")
                let key = path.sqliteFolded
                guard !options.enumGroups.contains(where: { $0.field.sqliteFolded == key }), !options.columnGroups.contains(where: { $0.sqliteFolded == key })
                else { continue }
                paths[key] = path
                children[key, default: []].append((input, parts[length]))
            }
        }
        for (key, members) in children where keysOfObjectsInsideGroups[key] != .some(nil) {
            var seen = keysOfObjectsInsideGroups[key] ?? []
            for row in 0 ..< batch.rowCount {
                var present = Set<String>()
                for member in members {
                    let kind = batch.cell(row: row, column: member.input).kind
                    if kind != .absent && kind != .null { present.insert(member.child) }
                }
                if present.count > 1 {
                    seen = nil
                    break
                }
                seen?.formUnion(present)
            }
            keysOfObjectsInsideGroups[key] = .some(seen)
            if let seen, seen.count >= 2, let path = paths[key] {
                let columns = Set(members.compactMap { tableColumnOfInput[$0.input] }).sorted().map { schema.columns[$0].name }
                throw NestedFieldError.enumOrGroup(field: path, seen: seen.sorted(), columns: columns, table: table)
            }
        }
    }

    func configureEnumGroups(_ session: WriteSession, schema: TableSchema) {
        guard !enumGroups.isEmpty else { return }
        session.setEnumGroups(
            enumGroups.map { group in group.columns.map { schema.columnIndex(named: $0)! } },
            groupOfInput: enumCaseOfInput.mapValues(\.group))
    }

    /// Refuses a record holding two cases of one enum (NULL values are no case), or a
    /// case and a value for another of the enum's columns outside it.
    func checkEnumCases(row: Int, of batch: RecordBatch, inputName: String) throws {
        for (input, isEnum) in plainGroupOfInput where batch.cell(row: row, column: input).kind != .absent {
            throw NestedFieldError.groupNotAnObject(batch.position(row: row, inputName: inputName), field: columnNames[input], isEnum: isEnum)
        }
        for (input, group) in enumUnknownCaseOfInput {
            let kind = batch.cell(row: row, column: input).kind
            guard kind != .absent && kind != .null || FieldPath.isPresenceMarker(fieldNames[input]) && kind != .absent else { continue }
            throw NestedFieldError.unknownCase(
                batch.position(row: row, inputName: inputName), path: FieldPath.dotted(fieldNames[input]), group: enumGroups[group].description,
                lacking: tableColumnOfInput[input] == nil && NestedFields.isWholeCase(fieldNames[input], in: enumGroups[group].field) ? session?.schema.name : nil)
        }
        var seen: [Int: String] = [:]
        for (input, member) in enumCaseOfInput {
            let kind = batch.cell(row: row, column: input).kind
            guard kind != .absent && kind != .null else { continue }
            if let other = seen[member.group], other != member.caseName {
                throw NestedFieldError.twoCases(
                    batch.position(row: row, inputName: inputName), field: enumGroups[member.group].field,
                    cases: [other, member.caseName].sorted())
            }
            seen[member.group] = member.caseName
        }
        guard !seen.isEmpty || !enumColumnOfDirectInput.isEmpty else { return }
        for (input, group) in enumColumnOfDirectInput where batch.cell(row: row, column: input).kind != .absent {
            guard enumCaseOfInput.contains(where: { $0.value.group == group && batch.cell(row: row, column: $0.key).kind != .absent }) else { continue }
            throw NestedFieldError.caseAndColumn(
                batch.position(row: row, inputName: inputName), field: enumGroups[group].field,
                column: tableColumnOfInput[input].flatMap { session?.schema.columns[$0].name } ?? columnNames[input],
                group: enumGroups[group].description)
        }
    }

    /// After the run: a declared enum whose field no record had.
    func warnAboutUnusedEnums() {
        for group in options.enumGroups where !fieldNames.contains(where: { NestedFields.caseName(of: $0, in: group.field) != nil }) {
            summary.warnings.append(
                "--enum \(group): no record has a nested field \(group.field), so no case was cleared; with CSV or flat JSON the case columns are filled as given")
        }
    }
}
