import Foundation
import SQLImportKit

/// The human line printed to stderr at the end of a run:
/// `app.db items: 1,000 read · 900 inserted · 100 updated · 0 unchanged · 0 rejected · 0.4 s (2.5K rows/s)`.
enum SummaryFormatter {
    /// One line per schema change: the table created, columns added, the index created,
    /// the indexes a first load dropped and rebuilt.
    static func schemaChanges(_ summary: ImportSummary) -> [String] {
        let verb = summary.dryRun ? "would have " : ""
        var lines: [String] = []
        if summary.createdTable != nil { lines.append("\(verb)created table \(SQLIdentifier.quote(summary.table))") }
        if !summary.addedColumns.isEmpty {
            lines.append("\(verb)added column\(summary.addedColumns.count == 1 ? "" : "s") \(summary.addedColumns.map(SQLIdentifier.quote).joined(separator: ", ")) (--alter)")
        }
        if let index = summary.createdIndex { lines.append("\(verb)created index: \(index)") }
        if !summary.deferredIndexes.isEmpty {
            lines.append(
                "built index\(summary.deferredIndexes.count == 1 ? "" : "es") \(summary.deferredIndexes.map(SQLIdentifier.quote).joined(separator: ", ")) once after the load, not row by row (a first load into an empty table)"
                    + (summary.indexesBuiltEarly.map { "; the unique ones during it, at \($0)" } ?? ""))
        }
        return lines
    }

    /// `--on-error skip`: the first reasons, and where the rest are.
    static func rejectReasons(_ summary: ImportSummary, rejectsFile: String?) -> [String] {
        guard summary.counts.rejected > 0 else { return [] }
        var lines = summary.firstRejects.prefix(3).map { "rejected: \($0)" }
        let rest = summary.counts.rejected - lines.count
        if let rejectsFile {
            lines.append(summary.counts.rejected == 1
                ? "the rejected record, with its reason, is in \(rejectsFile)"
                : "all \(grouped(summary.counts.rejected)) rejected records, with their reasons, are in \(rejectsFile)")
        } else if rest > 0 {
            lines.append("and \(grouped(rest)) more rejected; pass --rejects FILE to keep every one with its reason")
        }
        return lines
    }

    /// After a failure: what stays committed, `stopped, nothing committed` when nothing.
    static func failureLine(_ partial: ImportSummary) -> String {
        let subject = "\(partial.database) \(partial.table)"
        if partial.counts.read == 0 || partial.dryRun { return "\(subject): stopped, nothing committed" }
        return line(partial, status: "stopped; committed before it (re-run with --resume): ")
    }

    /// - Parameter status: words between the subject and the counts.
    static func line(_ summary: ImportSummary, status: String = "") -> String {
        let counts = summary.counts
        var parts = ["\(grouped(counts.read)) read"]
        if summary.parseOnly {
            parts.append("\(grouped(counts.rejected)) rejected")
            parts.append("parse only, no database opened")
        } else {
            parts.append("\(grouped(counts.inserted)) inserted")
            parts.append("\(grouped(counts.updated)) updated")
            parts.append("\(grouped(counts.unchanged)) unchanged")
            if counts.skipped > 0 { parts.append("\(grouped(counts.skipped)) skipped") }
            if counts.outsidePartialIndex > 0 { parts.append("\(grouped(counts.outsidePartialIndex)) outside partial index") }
            if counts.ignored > 0 { parts.append("\(grouped(counts.ignored)) ignored") }
            if counts.nullKey > 0 { parts.append("\(grouped(counts.nullKey)) null key") }
            if counts.duplicateKeys > 0 { parts.append("\(grouped(counts.duplicateKeys)) duplicate keys") }
            if summary.deleteCandidates != nil || counts.tombstones > 0 || counts.deleted > 0 { parts.append("\(grouped(counts.deleted)) deleted") }
            if counts.tombstones > 0 {
                parts.append("\(grouped(counts.tombstones)) tombstones" + (counts.tombstonesWithoutRow > 0 ? " (\(grouped(counts.tombstonesWithoutRow)) without a row)" : ""))
            }
            parts.append("\(grouped(counts.rejected)) rejected")
        }
        let seconds = max(summary.durationSeconds, 0.000_001)
        parts.append(String(format: "%.1f s (%@ rows/s)", seconds, abbreviated(Double(counts.read) / seconds)))
        if summary.dryRun { parts.append("dry run: rolled back, nothing written") }
        let subject = summary.parseOnly ? summary.table : "\(summary.database) \(summary.table)"
        return "\(subject): " + status + parts.joined(separator: " · ")
    }

    static func grouped(_ value: Int) -> String {
        let digits = String(value)
        var result = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return result
    }

    static func abbreviated(_ value: Double) -> String {
        if value >= 1_000_000 { return String(format: "%.1fM", value / 1_000_000) }
        if value >= 1_000 { return String(format: "%.0fK", value / 1_000) }
        return String(format: "%.0f", value)
    }
}

/// What `--dry-run` prints on stdout.
enum PlanFormatter {
    static func plan(_ summary: ImportSummary) -> String {
        var lines: [String] = []
        lines.append("table: \(summary.table)")
        if let created = summary.createdTable { lines.append("create: \(created)") }
        if let index = summary.createdIndex { lines.append("create index: \(index)") }
        for column in summary.addedColumns { lines.append("add column: \(column)") }
        if let target = summary.conflictTarget {
            lines.append("conflict target: (\(target.joined(separator: ", ")))")
            lines.append("predicate: \(summary.conflictPredicate ?? "none (not a partial index)")")
            if let fallback = summary.fallbackKey {
                lines.append("rows outside the predicate: upserted on the primary key (\(fallback.joined(separator: ", ")))")
            }
        } else {
            lines.append("conflict target: none (plain INSERT; pass --upsert to update existing rows)")
        }
        lines.append("merge: \(summary.merge)")
        lines.append("strategy: \(summary.strategy), \(summary.rowsPerStatement) row(s) per statement (\(summary.strategyReason))")
        lines.append("records read: \(summary.counts.read)")
        if summary.counts.outsidePartialIndex > 0 { lines.append("outside the partial index: \(summary.counts.outsidePartialIndex)") }
        if let sql = summary.statementSQL { lines.append("statement:\n\(sql)") }
        return lines.joined(separator: "\n")
    }
}
