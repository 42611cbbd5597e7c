import Testing

@testable import SQLImportKit

/// `export --param` on PostgreSQL: `:name` becomes `$n` where PostgreSQL's lexer would see
/// a name, and nowhere else; the values travel as parameters.
@Suite struct PostgresQueryParametersTests {
    @Test func namesBecomeNumberedParametersOutsideStringsCommentsAndCasts() throws {
        let bound = try PostgresQueryParameters(
            query: #"SELECT ':skip', ":skip", x::text, $q$ :skip $q$, E'\' :skip' -- :skip"# + "\n"
                + #"/* :skip /* :skip */ */ FROM t WHERE a >= :since AND b < :until AND c = :since AND d = 'it''s :skip'"#,
            parameters: ["since": "2026-11-01", "until": "2026-12-01"])
        #expect(
            bound.sql
                == #"SELECT ':skip', ":skip", x::text, $q$ :skip $q$, E'\' :skip' -- :skip"# + "\n"
                + #"/* :skip /* :skip */ */ FROM t WHERE a >= $1 AND b < $2 AND c = $1 AND d = 'it''s :skip'"#)
        #expect(bound.values == ["2026-11-01", "2026-12-01"])
    }

    @Test func unboundNamesUnusedParametersAndPositionalOnesAreRefused() {
        #expect(throws: ExportError.self) { try PostgresQueryParameters(query: "SELECT * FROM t WHERE a = :since", parameters: [:]) }
        #expect(throws: ExportError.self) { try PostgresQueryParameters(query: "SELECT 1", parameters: ["since": "x"]) }
        #expect(throws: ExportError.self) { try PostgresQueryParameters(query: "SELECT * FROM t WHERE a = $1", parameters: ["a": "x"]) }
        // An identifier may hold $, and a slice with spaces has no parameter.
        #expect((try? PostgresQueryParameters(query: "SELECT a$1, b[1 : 2] FROM t", parameters: [:]))?.sql == "SELECT a$1, b[1 : 2] FROM t")
        // Without --param, names are PostgreSQL's (a slice a[lo:hi]), and $1 is still refused.
        #expect((try? PostgresQueryParameters(query: "SELECT a[lo:hi] FROM t", parameters: [:], bindsNames: false))?.sql == "SELECT a[lo:hi] FROM t")
        #expect(throws: ExportError.self) { try PostgresQueryParameters(query: "SELECT * FROM t WHERE a = $1", parameters: [:], bindsNames: false) }
    }
}
