import Dispatch
import Foundation
import SQLImportKit

/// SIGINT and SIGTERM during export, snapshot or restore: remove every registered
/// temporary file (`TemporaryFiles`), then exit 130 or 143 as a shell does.
///
/// The signals are received by dispatch sources, so the cleanup runs on an ordinary
/// thread, not inside a signal handler.
enum SignalCleanup {
    nonisolated(unsafe) private static var sources: [DispatchSourceSignal] = []

    /// Installs the handlers once; later calls do nothing.
    static func install() {
        guard sources.isEmpty else { return }
        for (number, status) in [(SIGINT, Int32(130)), (SIGTERM, Int32(143))] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                TemporaryFiles.shared.removeAll()
                exit(status)
            }
            source.resume()
            sources.append(source)
        }
    }
}
