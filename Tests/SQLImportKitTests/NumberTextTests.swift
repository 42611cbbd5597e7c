import Testing

@testable import SQLImportKit

/// Which JSON numbers a double gives back as written, decimal for decimal: the others
/// keep their text for PostgreSQL's `numeric` (`RecordBatch.exactNumbers`).
struct NumberTextTests {
    @Test func fifteenDigitsOrWhatADoublePrintsAreKept() {
        for text in ["0.1", "625.720304108054", "0.6039200385961945", "-1.5e-300", "1e2", "0.10000000000000000000", "123456789012345.6"] {
            #expect(Array(text.utf8).withUnsafeBytes { NumberText.keepsDecimal($0, Double(text)!) }, "\(text)")
        }
    }

    @Test func digitsADoubleLosesAreNot() {
        // (A subnormal double holds fewer than 15 digits; 3e-324 reads as 0.)
        for text in ["12345678901234.5678", "99999999999999.9999", "0.10000000000000001", "3.14159265358979323846", "-1.00000000000000000001e5", "1.2345678901234e-320", "3e-324", "2e-400"] {
            #expect(!Array(text.utf8).withUnsafeBytes { NumberText.keepsDecimal($0, Double(text)!) }, "\(text)")
        }
    }

    /// The decimal places a `numeric(p,s)` check counts, from any spelling; nil for text
    /// that is no decimal number.
    @Test func decimalPlacesAreCountedFromAnySpelling() {
        let cases: [(String, Int?)] = [
            ("1.2300", 2), ("1.5e-3", 4), ("12e2", 0), (" -0.000 ", 0), ("+7", 0), (".5", 1), ("5.", 0), ("1e", nil), ("abc", nil), ("1.2.3", nil),
            ("", nil), (".", nil), ("12345678901234.5678", 4),
        ]
        for (text, places) in cases {
            #expect(Array(text.utf8).withUnsafeBytes(PostgresValueCheck.decimalPlaces) == places, "\(text)")
        }
    }
}
