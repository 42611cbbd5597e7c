import ArgumentParser
import Foundation
import GRDB
import SQLImportKit

/// The exit codes of README.md's table, in one place.
enum ExitStatus {
    static let success: Int32 = 0
    /// Applied, but some records were rejected (`--on-error skip`).
    static let someRejected: Int32 = 2
    static let usage: Int32 = 64
    static let badData: Int32 = 65
    static let noInput: Int32 = 66
    /// PostgreSQL: the server cannot be reached.
    static let unavailable: Int32 = 69
    /// PostgreSQL: the server refused the login.
    static let noPermission: Int32 = 77
    static let software: Int32 = 70
    static let cannotCreate: Int32 = 73
    static let ioError: Int32 = 74
    static let temporary: Int32 = 75

    /// The exit codes as `--help` ends with them (README.md's table, shortened).
    static let helpTable = """
        EXIT CODES:
          0    everything applied
          2    applied, but some records were rejected (--on-error skip)
          64   usage error: a bad flag or value; the message names the fix
          65   bad input data: nothing committed (--commit-every: none after the last)
          66   input not found or unreadable
          69   PostgreSQL: the server cannot be reached
          70   internal error
          73   cannot open the database, or it is not a database, or it is corrupt
          74   I/O error (disk full, read-only): rolled back
          75   database busy beyond --busy-timeout: temporary, cron may retry
          77   PostgreSQL: the server refused the login
          128+n  interrupted by signal n (130 SIGINT, 143 SIGTERM, 129 SIGHUP): rolled back
        """

    /// Argument-parsing errors: usage, except help and version requests.
    static func forParsing(_ error: Error) -> Int32? {
        let code = SQLImportCommand.exitCode(for: error)
        return code == .validationFailure ? usage : nil
    }

    /// The exit code for an error of a run.
    static func code(for error: Error) -> Int32 {
        switch error {
        case let error as PostgresError:
            switch error.kind {
            case .connection: return unavailable
            case .authentication, .permission: return noPermission
            case .readOnly: return ioError
            case .busy, .canceled: return temporary
            case .data: return badData
            case .usage: return usage
            case .server: return software
            }
        case let error as InputError:
            switch error {
            case .notFound, .unreadable, .snapshotIsAFolder: return noInput
            case .unsupportedEncoding: return usage
            default: return badData
            }
        case let error as ReaderError:
            if case .input(let inner) = error { return code(for: inner) }
            if case .badOption = error { return usage }
            return badData
        case let fault as DatabaseFault:
            switch fault.kind {
            case .full, .ioError, .readOnly: return ioError
            case .busy: return temporary
            // A --db whose folder does not exist cannot be opened, as export says too.
            case .corrupt, .notADatabase, .missingFolder: return cannotCreate
            }
        case is WriteError:
            if let error = error as? WriteError, error.isBusy { return temporary }
            return badData
        case let error as SchemaError:
            switch error {
            case .invalidTypeOverride, .unknownColumnInOption, .ambiguousColumnInOption, .notATable, .unknownSchema, .unknownPostgresSchema, .optionForNewTable:
                return usage
            default: return badData
            }
        case let error as MirrorError:
            switch error {
            case .tooManyDeletions, .cascadeExceedsLimit, .restricted: return badData
            default: return usage
            }
        case let error as NestedFieldError:
            switch error {
            case .invalidEnumOption, .badEnumColumn, .declaredTwice: return usage
            default: return badData
            }
        case let error as UpsertError:
            switch error {
            case .keyNotInInput, .duplicateKeysBlockIndex, .nullKey, .duplicateKey, .nullKeyNeedsPrimaryKey: return badData
            default: return usage
            }
        case let error as ImportError:
            switch error {
            case .interrupted(let signal): return 128 + signal
            case .anotherRun: return temporary
            case .runLockUnavailable: return ioError
            case .emptyRecord, .invalidFieldName, .tooManyRejects, .inputChangedSinceInterruptedRun, .deferredForeignKey: return badData
            default: return usage
            }
        case let error as OutputError:
            switch error {
            case .brokenPipe: return success
            case .alreadyExists, .wouldReplaceSource, .staleSideFiles, .sharedOutput: return usage
            case .cannotCreate, .writeFailed, .appendFailed: return ioError
            case .databaseInUse: return temporary
            case .compressionFailed: return software
            }
        case let error as ExportError:
            if case .invalidUTF8 = error { return badData }
            if case .noDatabase = error { return cannotCreate }
            if case .databaseIsAFolder = error { return cannotCreate }
            return usage
        case is SnapshotError:
            return badData
        case let error as DatabaseError:
            switch error.resultCode {
            case .SQLITE_BUSY, .SQLITE_LOCKED: return temporary
            case .SQLITE_CANTOPEN, .SQLITE_NOTADB, .SQLITE_CORRUPT: return cannotCreate
            case .SQLITE_FULL, .SQLITE_IOERR, .SQLITE_READONLY: return ioError
            case .SQLITE_CONSTRAINT, .SQLITE_MISMATCH, .SQLITE_TOOBIG, .SQLITE_RANGE: return badData
            default: return software
            }
        default:
            return software
        }
    }

    /// A one-paragraph message for an error, without Swift's type decoration.
    /// `message` for a `--commit-every` run that had committed `committed` records at its
    /// checkpoints before `error`: the messages' "nothing was committed" holds for what
    /// came after the last checkpoint only. A damaged compressed stream is found at its
    /// check, after the records read before it were decoded: those may be wrong.
    static func afterCheckpoints(_ message: String, error: Error, committed: Int) -> String {
        var text = message
        let kept = "nothing after the last checkpoint was committed; the \(SummaryFormatter.grouped(committed)) records committed at checkpoints before it stay"
        for phrase in ["nothing from this input was committed", "nothing was committed", "nothing committed"] where text.contains(phrase) {
            text = text.replacingOccurrences(of: phrase, with: kept)
            break
        }
        if !text.contains(kept) { text += "; \(kept)" }
        if text.contains(WriteError.inferredTypePhrase) {
            // The table exists now: --type and --infer-rows apply to new tables only, and a
            // resumed run stores the rest as an existing table's columns take them.
            text += ". The table this run created was committed with those types, so --type and --infer-rows no longer change it: to type it anew, drop it and run again with them (--resume would store the rest as its columns now take them)"
        }
        let inputError: InputError?
        if case .input(let wrapped)? = error as? ReaderError { inputError = wrapped } else { inputError = error as? InputError }
        if case .corruptCompressedStream? = inputError {
            text += ". A damaged stream may have given wrong values before its check failed: import a good copy again (--resume starts over, since the input changed)"
        }
        return text
    }

    /// - Parameter database: the `--db` of a command whose SQLite errors (GRDB's, which
    ///   name no file) should say which database they are about.
    static func message(for error: Error, database: String? = nil) -> String {
        switch error {
        case let error as DatabaseError:
            var text = (database.map { "\($0): " } ?? "") + (error.message ?? "\(error)")
            switch error.resultCode {
            case .SQLITE_BUSY, .SQLITE_LOCKED:
                text += "; another connection holds the database's write lock. Retry later, or raise --busy-timeout"
            case .SQLITE_NOTADB, .SQLITE_CORRUPT:
                text += "; sqlimport will not write to it. Check the --db path, or restore the database from a snapshot"
            case .SQLITE_READONLY:
                // SQLITE_READONLY_ROLLBACK and _RECOVERY: an interrupted write left a hot
                // journal (or a WAL to recover), which a read-only connection cannot undo.
                if error.extendedResultCode.rawValue == 776 || error.extendedResultCode.rawValue == 264 {
                    text += "; an interrupted write left the database's journal to roll back, which a read-only command cannot do. Open the database once for writing (any sqlimport import into it, or sqlite3 DATABASE 'PRAGMA quick_check'), then run this again"
                } else {
                    text += "; check the permissions of the database file and its folder"
                }
            default: break
            }
            return text
        case let error as CustomStringConvertible:
            return error.description
        default:
            return "\(error)"
        }
    }
}
