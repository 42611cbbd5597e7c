/// Errors of the PostgreSQL target. Each says how to fix the problem.
public struct PostgresError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The server cannot be reached, or the connection broke (SQLSTATE class 08), or
        /// the server ended it: an administrator's `pg_terminate_backend` or a shutdown
        /// (57P01–57P03), an idle timeout (25P03, 57P05).
        case connection
        /// The server refused the credentials (28000, 28P01).
        case authentication
        /// The role lacks a privilege the run needs (42501).
        case permission
        /// The transaction is read-only (25006): a standby, or
        /// `default_transaction_read_only`.
        case readOnly
        /// A lock was not granted within `--busy-timeout` (55P03), or the transaction
        /// had to be retried (40001, 40P01).
        case busy
        /// The server cancelled the statement (57014): its `statement_timeout`, or another
        /// session's `pg_cancel_backend`. (A signal's cancel is the signal's stop.)
        case canceled
        /// The data: a value the column refuses, a constraint, a trigger's exception
        /// (classes 22, 23 and P0).
        case data
        /// The statement or the schema: no such table or column (class 42).
        case usage
        /// Anything else the server reported.
        case server
    }

    public var kind: Kind
    public var sqlState: String
    public var message: String
    /// Where the record came from, when the error is a record's.
    public var position: SourcePosition?
    /// The server's CONTEXT field (for COPY: the staging line and column).
    var context: String?
    /// Refused at the commit (a deferred constraint or constraint trigger), not by a record.
    var atCommit = false

    init(kind: Kind, sqlState: String = "", message: String, position: SourcePosition? = nil) {
        self.kind = kind
        self.sqlState = sqlState
        self.message = message
        self.position = position
    }

    init(sqlState: String, message: String, position: SourcePosition? = nil) {
        let kind: Kind
        switch sqlState {
        case let state where state.hasPrefix("08"): kind = .connection
        case "57P01", "57P02", "57P03", "25P03", "57P05": kind = .connection
        case "57014": kind = .canceled
        case "28000", "28P01": kind = .authentication
        case "42501": kind = .permission
        case "25006": kind = .readOnly
        case "55P03", "40001", "40P01": kind = .busy
        // A trigger's `RAISE EXCEPTION` (class P0, PL/pgSQL) refuses the record that fired
        // it, as SQLite's `RAISE(ABORT)` does.
        case let state where state.hasPrefix("22") || state.hasPrefix("23") || state.hasPrefix("P0"): kind = .data
        case let state where state.hasPrefix("42"): kind = .usage
        default: kind = .server
        }
        self.init(kind: kind, sqlState: sqlState, message: message, position: position)
    }

    public var description: String {
        let prefix = position.map { "\($0): " } ?? ""
        switch kind {
        case .connection:
            // Not the record's fault: no position. (A connection the server ended may come
            // back as a broken connection without its SQLSTATE: its text tells.)
            let cause = message.contains("terminating connection due to administrator command") ? "57P01"
                : message.contains("idle-in-transaction timeout") || message.contains("idle-session timeout") ? "25P03"
                : message.contains("server closed the connection unexpectedly") ? "closed"
                : message.contains("the database system is in recovery mode") || message.contains("the database system is starting up")
                    || message.contains("the database system is shutting down") || message.contains("the database system is not yet accepting connections") ? "57P03"
                : sqlState
            switch cause {
            case "25P03", "57P05":
                return "the PostgreSQL server ended the connection: \(message); its idle timeout is shorter than the run's waits for its input. Raise idle_in_transaction_session_timeout for this role (or options=-cidle_in_transaction_session_timeout%3D0 in the --db URL), or feed the input faster, and run again"
            case "57P03":
                return "the PostgreSQL server is not accepting connections yet: \(message) (it is starting, recovering from a crash, or shutting down); run again in a moment (with --resume after --commit-every)"
            case "57P01", "57P02":
                return "the PostgreSQL server ended the connection: \(message) (an administrator's pg_terminate_backend, or a shutdown); run again once it is up (with --resume after --commit-every)"
            // (A server stopped at once, or crashed, while the run was connected: not the URL.)
            case "closed":
                return "the PostgreSQL server closed the connection: \(message); it stopped or crashed, or the network between broke. Run again once it is up (with --resume after --commit-every)"
            default:
                return "cannot reach the PostgreSQL server: \(message); check the --db URL (host, port, dbname) and that the server is running"
            }
        case .canceled:
            return "PostgreSQL cancelled the statement: \(message); the server's statement_timeout (or another session's pg_cancel_backend) stopped it, not a record. Raise statement_timeout for this role (or options=-cstatement_timeout%3D0 in the --db URL) and run again"
        case .authentication:
            return "\(prefix)the PostgreSQL server refused the login: \(message); check the user and password in the --db URL, PGUSER/PGPASSWORD or ~/.pgpass"
        case .permission:
            return "PostgreSQL: \(message); the role lacks a privilege the run needs: SELECT, INSERT and UPDATE on the table (DELETE too with --delete-missing or --tombstone), and CREATE on its schema for a new table, --alter or --commit-every's _sqlimport_runs. GRANT them to the role in the --db URL, or run as the table's owner"
        case .readOnly:
            return "PostgreSQL: \(message); the server is a standby, or default_transaction_read_only is on for the role or the database. Point --db at the primary, or turn it off (options=-cdefault_transaction_read_only%3Doff in the --db URL)"
        case .busy:
            return "\(prefix)PostgreSQL: \(message); another transaction holds a lock on the table. Retry later, or raise --busy-timeout"
        case .data where atCommit:
            return "PostgreSQL refused the commit: \(message); a deferred constraint or constraint trigger checks the rows after every record is written, so no one record can be named, and --on-error skip cannot set it aside. Fix the rows it names, or make the constraint immediate (SET CONSTRAINTS ... IMMEDIATE, or NOT DEFERRABLE) so that it refuses its record"
        case .data:
            return "\(prefix)PostgreSQL refused the record: \(message)"
        case .usage, .server:
            return "\(prefix)PostgreSQL: \(message)"
        }
    }
}
