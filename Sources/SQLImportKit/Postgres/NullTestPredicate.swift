/// A partial index's predicate that only tests columns for NULL, joined by AND, as
/// `pg_get_expr` prints it: `("remoteID" IS NOT NULL)`, `((deleted_at IS NULL) AND (x IS
/// NOT NULL))`. The seeds' sync identity and soft-delete indexes have this shape, and a
/// record's side of it is known from its cells alone, so a first load can COPY such
/// records straight into the table (`PostgresRun.copyIntoTable`). Any other predicate
/// (a comparison, OR, a function) is nil: the server evaluates it.
struct NullTestPredicate: Equatable {
    struct Test: Equatable {
        /// The column, as the catalog spells it.
        var column: String
        var isNull: Bool
    }

    var tests: [Test]

    init?(_ text: String) {
        var tokens: [String] = []
        var quoted: [Bool] = []
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if character == " " || character == "(" || character == ")" {
                index = text.index(after: index)
            } else if character == "\"" {
                // "a""b" is a"b.
                var name = ""
                var at = text.index(after: index)
                while true {
                    guard at < text.endIndex else { return nil }
                    if text[at] == "\"" {
                        let next = text.index(after: at)
                        if next < text.endIndex && text[next] == "\"" {
                            name.append("\"")
                            at = text.index(after: next)
                            continue
                        }
                        index = next
                        break
                    }
                    name.append(text[at])
                    at = text.index(after: at)
                }
                tokens.append(name)
                quoted.append(true)
            } else {
                var word = ""
                while index < text.endIndex, text[index].isLetter || text[index].isNumber || text[index] == "_" {
                    word.append(text[index])
                    index = text.index(after: index)
                }
                guard !word.isEmpty, word.first!.isLetter || word.first == "_", word.allSatisfy(\.isASCII) else { return nil }
                tokens.append(word)
                quoted.append(false)
            }
        }
        // column IS [NOT] NULL (AND column IS [NOT] NULL)*
        func keyword(_ at: Int, _ word: String) -> Bool { at < tokens.count && !quoted[at] && tokens[at].uppercased() == word }
        let reserved: Set<String> = ["IS", "NOT", "NULL", "AND", "OR", "TRUE", "FALSE"]
        var tests: [Test] = []
        var at = 0
        while true {
            guard at < tokens.count, quoted[at] || !reserved.contains(tokens[at].uppercased()), keyword(at + 1, "IS") else { return nil }
            // A bare name is folded to lower case, as PostgreSQL reads it.
            let column = quoted[at] ? tokens[at] : tokens[at].sqliteFolded.text
            at += 2
            let isNull = !keyword(at, "NOT")
            if !isNull { at += 1 }
            guard keyword(at, "NULL") else { return nil }
            at += 1
            tests.append(Test(column: column, isNull: isNull))
            if at == tokens.count { break }
            guard keyword(at, "AND") else { return nil }
            at += 1
        }
        self.tests = tests
    }
}
