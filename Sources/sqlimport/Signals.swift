import Dispatch
import Foundation
import SQLImportKit

/// What SIGINT and SIGTERM do. Signals are received by dispatch sources, so the work runs
/// on an ordinary thread, not inside a signal handler.
enum Signals {
    nonisolated(unsafe) private static var sources: [DispatchSourceSignal] = []

    /// Import: stop the run cleanly. Reading stops, the open transaction rolls back, the
    /// summary is printed, and the exit code is 130 or 143.
    static func cancel(_ cancellation: Cancellation) {
        install { cancellation.cancel(signal: $0) }
    }

    /// Export, snapshot and restore: remove every registered temporary file
    /// (`TemporaryFiles`), then exit 130 or 143 as a shell does.
    static func removeTemporaryFilesAndExit() {
        install { number in
            TemporaryFiles.shared.removeAll()
            exit(128 + number)
        }
    }

    /// Installs `handler` for SIGINT and SIGTERM, once; later calls do nothing.
    private static func install(_ handler: @escaping @Sendable (Int32) -> Void) {
        guard sources.isEmpty else { return }
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { handler(number) }
            source.resume()
            sources.append(source)
        }
    }
}
