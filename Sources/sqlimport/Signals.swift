import Dispatch
import Foundation
import SQLImportKit

/// What SIGINT, SIGTERM and SIGHUP do. Signals are received by dispatch sources, so the
/// work runs on an ordinary thread, not inside a signal handler. A SIGHUP ignored when
/// the process started (`nohup`) stays ignored.
enum Signals {
    nonisolated(unsafe) private static var sources: [DispatchSourceSignal] = []

    /// Import: stop the run cleanly. Reading stops, the open transaction rolls back, the
    /// summary is printed, and the exit code is 130, 143 or 129.
    static func cancel(_ cancellation: Cancellation) {
        install { cancellation.cancel(signal: $0) }
    }

    /// Export, snapshot and restore: remove every registered temporary file
    /// (`TemporaryFiles`), then exit 130, 143 or 129 as a shell does.
    static func removeTemporaryFilesAndExit() {
        install { number in
            TemporaryFiles.shared.removeAll()
            exit(128 + number)
        }
    }

    /// Installs `handler` for SIGINT, SIGTERM and SIGHUP, once; later calls do nothing.
    private static func install(_ handler: @escaping @Sendable (Int32) -> Void) {
        guard sources.isEmpty else { return }
        for number in [SIGINT, SIGTERM, SIGHUP] {
            let previous = signal(number, SIG_IGN)
            // (C function pointers are not Equatable in Swift: compared as addresses.)
            if number == SIGHUP, let previous, unsafeBitCast(previous, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self) { continue }
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { handler(number) }
            source.resume()
            sources.append(source)
        }
    }
}
