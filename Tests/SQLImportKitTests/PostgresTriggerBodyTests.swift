import Testing

@testable import SQLImportKit

/// Whether a trigger function's source may write, read past strings, quoted names,
/// dollar quotes and comments; the names it calls are collected for the catalog.
struct PostgresTriggerBodyTests {
    func reading(_ source: String) -> (mayWrite: Bool, calls: Set<String>) {
        var calls = Set<String>()
        let mayWrite = PostgresTriggerBody.mayWrite(source, calls: &calls)
        return (mayWrite, calls)
    }

    @Test func aStatementThatWritesIsAWrite() {
        for source in [
            "BEGIN INSERT INTO log VALUES (NEW.id); RETURN NEW; END", "BEGIN update parent SET n = n + 1; RETURN NEW; END",
            "BEGIN WITH gone AS (DELETE FROM x RETURNING 1) SELECT 1 INTO n; RETURN NEW; END",
            "BEGIN EXECUTE format('SELECT 1'); RETURN NEW; END", "BEGIN CALL refresh(); RETURN NEW; END",
            "BEGIN PERFORM 1 FROM t FOR UPDATE; RETURN NEW; END",
        ] {
            #expect(reading(source).mayWrite, "\(source)")
        }
    }

    @Test func wordsInStringsQuotedNamesAndCommentsAreNoWrites() {
        let read = reading(
            """
            BEGIN
              -- INSERT INTO log
              /* DELETE /* nested: UPDATE */ still a comment: TRUNCATE */
              IF TG_OP = 'UPDATE' OR NEW."delete" = E'it\\'s INSERT' OR NEW.v = $$EXECUTE$$ OR NEW.w = $x$ CALL $$ $x$ THEN
                NEW.touched := now();
              END IF;
              NEW.k := "Lower"(NEW.k) || $1;
              RETURN NEW;
            END
            """)
        #expect(!read.mayWrite)
        #expect(read.calls.isSuperset(of: ["now", "lower"]))
    }

    @Test func anUnterminatedStringOrCommentIsAWrite() {
        for source in ["BEGIN NEW.v := 'open; RETURN NEW; END", "BEGIN /* open RETURN NEW; END", "BEGIN NEW.v := $q$ open; END"] {
            #expect(reading(source).mayWrite, "\(source)")
        }
    }
}
