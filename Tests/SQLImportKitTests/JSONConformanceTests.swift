import Foundation
import Testing
@testable import SQLImportKit

/// JSONTestSuite (nst/JSONTestSuite, fixtures/conformance/json/test_parsing): every
/// `y_` document accepted, every `n_` document rejected, no `i_` document crashes.
@Suite struct JSONConformanceTests {
    static let folder = TestSupport.conformance.appendingPathComponent("json/test_parsing")

    static func documents(_ prefix: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasPrefix(prefix) && $0.hasSuffix(".json") }.sorted()
    }

    static func validate(_ name: String) throws {
        let data = try Data(contentsOf: folder.appendingPathComponent(name))
        try data.withUnsafeBytes { raw in
            try JSONScanner.validateDocument(raw.bindMemory(to: UInt8.self))
        }
    }

    @Test func corpusIsPresent() {
        #expect(Self.documents("y_").count >= 95)
        #expect(Self.documents("n_").count >= 180)
        #expect(Self.documents("i_").count >= 30)
    }

    @Test(arguments: documents("y_"))
    func acceptsEveryValidDocument(_ name: String) throws {
        try Self.validate(name)
    }

    /// `n_single_space` and `n_structure_no_data` are empty: zero records, per the corpus README.
    @Test(arguments: documents("n_").filter { !["n_single_space.json", "n_structure_no_data.json"].contains($0) })
    func rejectsEveryInvalidDocument(_ name: String) {
        #expect(throws: JSONScanner.Failure.self) { try Self.validate(name) }
    }

    @Test(arguments: documents("i_"))
    func implementationDefinedDocumentsNeitherCrashNorHang(_ name: String) {
        _ = try? Self.validate(name)
        _ = try? RecordsReader.read(Self.folder.appendingPathComponent(name).path, options: Self.jsonFormat)
    }

    static var jsonFormat: ReaderOptions {
        var options = ReaderOptions()
        options.format = .json
        return options
    }

    /// The readers agree with the scanner: a valid document that is an object or an
    /// array of objects yields records; anything else is a clear error, never a crash.
    @Test(arguments: documents("y_") + documents("n_"))
    func jsonReaderAgreesWithTheScanner(_ name: String) throws {
        let path = Self.folder.appendingPathComponent(name).path
        let valid = (try? Self.validate(name)) != nil
        do {
            _ = try RecordsReader.read(path, options: Self.jsonFormat)
        } catch let error as ReaderError {
            if valid {
                // A valid document may still not be records ([1], "x", null, [[]]).
                guard case .notAnObject = error else {
                    Issue.record("\(name) is valid JSON but the reader said: \(error)")
                    return
                }
            }
            #expect(error.position != nil || valid, "\(name): \(error)")
        }
        if !valid && !Self.emptyInputs.contains(name) {
            #expect(throws: (any Error).self, "\(name) is invalid but was read") {
                _ = try RecordsReader.read(path, options: Self.jsonFormat)
            }
        }
    }

    /// Empty inputs are zero records: the corpus README's two, and a lone UTF-8 BOM (a
    /// leading BOM is skipped, leaving nothing).
    static let emptyInputs = ["n_single_space.json", "n_structure_no_data.json", "n_structure_UTF8_BOM_no_data.json"]

    @Test func emptyDocumentsAreZeroRecords() throws {
        for name in Self.emptyInputs {
            #expect(try RecordsReader.read(Self.folder.appendingPathComponent(name).path, options: Self.jsonFormat).isEmpty)
        }
    }
}
