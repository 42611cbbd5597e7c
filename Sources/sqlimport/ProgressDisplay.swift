import Foundation
import SQLImportKit

/// The progress line on stderr: bytes, rows, rate and ETA for a file of known size;
/// rows and rows/s for standard input or compressed input. Redrawn at most 5 times a
/// second, and erased at the end.
final class ProgressDisplay {
    private let started = Date()
    private var lastDraw = Date.distantPast
    private var drawn = false

    /// Shown on a terminal, or everywhere with --progress; never with --quiet.
    static func isWanted(forced: Bool, quiet: Bool) -> Bool {
        !quiet && (forced || isatty(STDERR_FILENO) == 1)
    }

    func update(_ progress: ImportProgress) {
        let now = Date()
        guard now.timeIntervalSince(lastDraw) >= 0.2 else { return }
        lastDraw = now
        let elapsed = max(now.timeIntervalSince(started), 0.001)
        let rate = Double(progress.rowsRead) / elapsed
        var line = "\(SummaryFormatter.grouped(progress.rowsRead)) rows · \(SummaryFormatter.abbreviated(rate)) rows/s"
        if let total = progress.totalBytes, total > 0 {
            let fraction = min(Double(progress.bytesRead) / Double(total), 1)
            let remaining = fraction > 0 ? elapsed * (1 - fraction) / fraction : 0
            line = String(format: "%5.1f%% · %@ / %@ MB · ", fraction * 100, megabytes(progress.bytesRead), megabytes(total))
                + line + String(format: " · ETA %.0f s", remaining)
        }
        _ = StandardOutput.write("\r\u{1B}[K" + line, to: STDERR_FILENO)
        drawn = true
    }

    func finish() {
        if drawn { _ = StandardOutput.write("\r\u{1B}[K", to: STDERR_FILENO) }
    }

    private func megabytes(_ bytes: Int64) -> String {
        String(format: "%.1f", Double(bytes) / 1_000_000)
    }
}

/// Writes to standard output and standard error that never stop the process: a closed or
/// broken stream (`2>&-`, a log pipe that exited, `| head`) loses the text, and the run
/// keeps its own exit code. (Foundation's `FileHandle.write(_:)` traps on such an error.)
enum StandardOutput {
    /// Writes `text` to `descriptor` (standard output by default); false when the stream
    /// is closed or broken.
    @discardableResult
    static func write(_ text: String, to descriptor: Int32 = STDOUT_FILENO) -> Bool {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { Glibc.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += written
        }
        return true
    }
}
