import Testing

@testable import SQLImportKit

/// Whether a trigger function's source may write, read past strings, quoted names,
/// dollar quotes and comments; the names it calls are collected for the catalog.
struct PostgresTriggerBodyTests {
    func reading(_ source: String) -> PostgresTriggerBody.Reading { PostgresTriggerBody.read(source) }

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
        // A quoted name as written, an unquoted one folded to lower case.
        #expect(read.calls.isSuperset(of: ["now", "Lower"]) && !read.calls.contains("lower"), "\(read.calls)")
    }

    /// Text it cannot read as PostgreSQL does is a write: a string left open, Unicode
    /// escapes (`U&"add\005fparent"` names add_parent), and a comment that PostgreSQL
    /// ends at a carriage return (helper-79).
    @Test func anUnterminatedStringOrCommentIsAWrite() {
        for source in [
            "BEGIN NEW.v := 'open; RETURN NEW; END", "BEGIN /* open RETURN NEW; END", "BEGIN NEW.v := $q$ open; END",
            #"BEGIN PERFORM U&"add\005fparent"(NEW.v); RETURN NEW; END"#, "BEGIN NEW.v := U&'\\0041'; RETURN NEW; END",
            "BEGIN -- note\rINSERT INTO parent VALUES (NEW.v);\n RETURN NEW; END",
        ] {
            #expect(reading(source).mayWrite, "\(source)")
        }
    }
}
