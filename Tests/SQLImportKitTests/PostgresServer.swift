import Foundation

/// The PostgreSQL server the tests run against: `SQLIMPORT_TEST_POSTGRES_URL` (set by
/// `.ci/run`), or else a throwaway cluster this test process starts once with
/// `scripts/postgres-test-server.sh` and stops when it exits. Never a mock, never a skip:
/// without PostgreSQL's server binaries the tests fail, naming the package to install.
enum PostgresServer {
    /// The base URL, or why there is none.
    static let url: Result<String, PostgresUnavailable> = {
        if let url = ProcessInfo.processInfo.environment["SQLIMPORT_TEST_POSTGRES_URL"], !url.isEmpty { return .success(url) }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sqlimport-pg-\(UUID().uuidString.prefix(8))")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        chmod(folder.path, 0o755)
        let script = TestSupport.packageRoot.appendingPathComponent("scripts/postgres-test-server.sh").path
        // system(3), not Foundation's Process, whose waitUntilExit does not return once
        // the script has left a daemon (the server) behind.
        let urlFile = folder.appendingPathComponent("url.txt").path
        let status = system("bash '\(script)' start '\(folder.path)' > '\(urlFile)' 2> '\(folder.path)/start.err' < /dev/null")
        guard status == 0, let started = try? String(contentsOfFile: urlFile, encoding: .utf8) else {
            let why = (try? String(contentsOfFile: "\(folder.path)/start.err", encoding: .utf8)) ?? ""
            return .failure(PostgresUnavailable(reason: "scripts/postgres-test-server.sh could not start a server (\(why)); install postgresql (bash scripts/install-deps.sh)"))
        }
        stopCommand = strdup("bash '\(script)' stop '\(folder.path)' >/dev/null 2>&1; rm -rf '\(folder.path)'")
        // At exit, system(3): Foundation's Process must not run while the process ends.
        atexit {
            if let command = PostgresServer.stopCommand { _ = system(command) }
        }
        return .success(started.trimmingCharacters(in: .whitespacesAndNewlines))
    }()

    nonisolated(unsafe) static var stopCommand: UnsafeMutablePointer<CChar>?

    struct PostgresUnavailable: Error, CustomStringConvertible {
        var reason: String
        var description: String { reason }
    }

    /// A URL whose connections see a schema of their own (dropped and made anew), so that
    /// tests running at once do not meet.
    static func database(schema: String, setUp sql: String) throws -> String {
        let base = try url.get()
        let separator = base.contains("?") ? "&" : "?"
        let scoped = base + separator + "options=-csearch_path%3D\(schema)"
        let result = try TestSupport.runShell(
            "psql -v ON_ERROR_STOP=1 -q '\(base)' -c 'DROP SCHEMA IF EXISTS \(schema) CASCADE' -c 'CREATE SCHEMA \(schema)' && psql -v ON_ERROR_STOP=1 -q '\(scoped)' <<'SQL'\n\(sql)\nSQL",
            in: URL(fileURLWithPath: "/"))
        guard result.status == 0 else { throw PostgresUnavailable(reason: "psql failed: \(result.stderr)") }
        return scoped
    }

    /// `psql -At` output of `sql`.
    static func query(_ url: String, _ sql: String) throws -> String {
        try TestSupport.runShell("psql -v ON_ERROR_STOP=1 -At '\(url)' <<'SQL'\n\(sql)\nSQL", in: URL(fileURLWithPath: "/")).stdout
    }
}
