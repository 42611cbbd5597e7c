import Foundation
import GRDB
import Testing
@testable import SQLImportKit

/// `Database.bulkUpsert`: Encodable values through the same planner, typed strategy.
@Suite struct BulkUpsertTests {
    struct Dimensions: Codable, Equatable {
        var width: Double
        var height: Double
    }

    struct Product: Codable {
        var sku: String
        var name: String
        var serial: UInt64
        var size: Dimensions
        var tags: [String]
        var discontinued: Bool
        var note: String?
    }

    static let products = [
        Product(sku: "A", name: "Chair", serial: UInt64.max, size: Dimensions(width: 0.5, height: 1), tags: ["wood"], discontinued: false, note: nil),
        Product(sku: "B", name: "Desk", serial: 42, size: Dimensions(width: 1.2, height: 0.75), tags: [], discontinued: true, note: "heavy"),
    ]

    @Test func encodableValuesAreUpsertedExactly() throws {
        let queue = try DatabaseQueue()
        let first = try queue.write { try $0.bulkUpsert(Self.products, into: "products", onConflict: ["sku"]) }
        #expect(first.counts.inserted == 2)
        #expect(first.strategy == "typed")
        let row = try queue.read { try Row.fetchOne($0, sql: "SELECT serial, typeof(serial) AS t, size, tags, discontinued, note FROM products WHERE sku = 'A'")! }
        #expect(row["serial"] as String == "18446744073709551615")
        #expect(row["t"] as String == "text")
        #expect(try JSONDecoder().decode(Dimensions.self, from: Data((row["size"] as String).utf8)) == Dimensions(width: 0.5, height: 1))
        #expect(row["tags"] as String == #"["wood"]"#)
        #expect(row["discontinued"] as Int == 0)
        #expect((row["note"] as DatabaseValue).isNull)
        let again = try queue.write { try $0.bulkUpsert(Self.products, into: "products", onConflict: ["sku"]) }
        #expect(again.counts.unchanged == 2)
        var renamed = Self.products
        renamed[1].name = "Standing desk"
        let changed = try queue.write { try $0.bulkUpsert(renamed, into: "products", onConflict: ["sku"]) }
        #expect(changed.counts.updated == 1)
        #expect(changed.counts.unchanged == 1)
    }

    @Test func typeErrorNamesColumnExpectedTypeValueAndRecord() throws {
        struct Reading: Codable { var id: Int; var value: String }
        let queue = try DatabaseQueue()
        try queue.write { try $0.execute(sql: "CREATE TABLE readings (id INTEGER PRIMARY KEY, value REAL NOT NULL) STRICT") }
        #expect {
            try queue.write { try $0.bulkUpsert([Reading(id: 1, value: "1.5"), Reading(id: 2, value: "lots")], into: "readings", onConflict: ["id"]) }
        } throws: { error in
            let text = "\(error)"
            return text.contains("<values>:2") && text.contains("\"value\"") && text.contains("REAL") && text.contains("lots")
        }
        #expect(try queue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM readings") } == 0)
    }

    @Test func runsInsideTheCallersTransaction() throws {
        let queue = try DatabaseQueue()
        try? queue.write { db in
            try db.bulkUpsert(Self.products, into: "products", onConflict: ["sku"])
            throw CancellationError()  // the caller's transaction rolls back
        }
        #expect(try queue.read { try $0.tableExists("products") } == false)
    }
}
