import Testing

@testable import SQLImportKit

/// Which partial-index predicates a first load decides from a record's cells
/// (`NullTestPredicate`): NULL tests joined by AND, as `pg_get_expr` prints them, and
/// nothing else.
@Suite struct NullTestPredicateTests {
    @Test func nullTestsJoinedByAndAreRead() {
        #expect(NullTestPredicate(#"("remoteID" IS NOT NULL)"#)?.tests == [.init(column: "remoteID", isNull: false)])
        #expect(
            NullTestPredicate("((deleted_at IS NULL) AND (\"Remote \"\"ID\"\"\" IS NOT NULL))")?.tests
                == [.init(column: "deleted_at", isNull: true), .init(column: "Remote \"ID\"", isNull: false)])
        // A bare name is folded to lower case, as PostgreSQL reads it.
        #expect(NullTestPredicate("(DeletedAt IS NULL)")?.tests == [.init(column: "deletedat", isNull: true)])
    }

    @Test(arguments: [
        "(x IS NULL) OR (y IS NULL)", "(NOT (x IS NULL))", "((x IS NULL) IS TRUE)", "(x > 0)", "(x IS NOT DISTINCT FROM y)",
        "((x)::text IS NULL)", "(lower(x) IS NULL)", "(x IS NULL) AND", "(\"x IS NULL)", "", "(x IS NULL AND TRUE)", "(1 IS NULL)",
    ])
    func anythingElseIsLeftToTheServer(_ predicate: String) {
        #expect(NullTestPredicate(predicate) == nil)
    }
}
