// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "sqlimport",
    // GRDB 7 needs macOS 10.15; `NSLocking.withLock` (KeyOrder, TemporaryFiles) needs
    // macOS 13. Nothing else here asks for more. (Linux has no minimum.)
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "sqlimport", targets: ["sqlimport"]),
        .library(name: "SQLImportKit", targets: ["SQLImportKit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // `swift package generate-documentation --target SQLImportKit` (DocC).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CZstd",
            pkgConfig: "libzstd",
            providers: [.apt(["libzstd-dev"]), .brew(["zstd"])]),
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]),
        // libpq, PostgreSQL's own client, for the PostgreSQL target: it speaks COPY FROM
        // STDIN (the bulk path), runs synchronously on the writing thread like SQLite, and
        // does TLS through the system's OpenSSL; postgres-nio would bring SwiftNIO's event
        // loops into a synchronous pipeline (and minutes of build time) for none of that.
        .systemLibrary(
            name: "CLibPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"]), .brew(["libpq"])]),
        // C: process-wide SQLite settings (sqlite3_config is variadic, which Swift cannot
        // call).
        .target(name: "CSQLiteConfig"),
        .target(
            name: "SQLImportKit",
            dependencies: [
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                "CZstd",
                "CZlib",
                "CSQLiteConfig",
                "CLibPQ",
            ]),
        .executableTarget(
            name: "sqlimport",
            dependencies: [
                "SQLImportKit",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        // C, for tests: a VFS whose writes fail on demand (JournalBufferTests).
        .target(name: "CFaultVFS", path: "Tests/CFaultVFS"),
        .testTarget(
            name: "SQLImportKitTests",
            dependencies: [
                "SQLImportKit", "CFaultVFS", "CSQLiteConfig", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
