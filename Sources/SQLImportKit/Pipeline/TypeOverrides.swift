/// `--type col=TYPE`: declared types that override inference, by column name.
///
/// A dictionary keyed by `String` took two names that Swift finds equal (`café`
/// composed and decomposed) for one, and gave one of SQLite's two columns the other's
/// type. Names here are compared by their bytes, as SQLite compares them but for ASCII
/// case, which the table's matching applies (`sqliteFolded`).
public struct TypeOverrides: Sendable, Equatable, ExpressibleByDictionaryLiteral, Sequence {
    private var entries: [(key: String, value: String)] = []

    public init() {}

    public init(dictionaryLiteral elements: (String, String)...) {
        for (key, value) in elements { self[key] = value }
    }

    /// The type given for exactly `column` (its bytes).
    public subscript(column: String) -> String? {
        get { entries.first { NameKey($0.key) == NameKey(column) }?.value }
        set {
            let index = entries.firstIndex { NameKey($0.key) == NameKey(column) }
            switch (index, newValue) {
            case (let index?, let value?): entries[index].value = value
            case (let index?, nil): entries.remove(at: index)
            case (nil, let value?): entries.append((column, value))
            case (nil, nil): break
            }
        }
    }

    public var keys: [String] { entries.map(\.key) }
    public var isEmpty: Bool { entries.isEmpty }

    public func makeIterator() -> IndexingIterator<[(key: String, value: String)]> { entries.makeIterator() }

    public static func == (lhs: TypeOverrides, rhs: TypeOverrides) -> Bool {
        lhs.entries.count == rhs.entries.count
            && zip(lhs.entries, rhs.entries).allSatisfy { NameKey($0.key) == NameKey($1.key) && $0.value == $1.value }
    }
}
