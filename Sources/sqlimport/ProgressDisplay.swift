import ArgumentParser
import Foundation
import SQLImportKit

/// Progress on stderr, in one of three forms:
/// - on a terminal, one line redrawn at most 5 times a second, cut to the terminal's
///   width and erased at the end (never under `TERM=dumb`);
/// - with `--progress` where stderr is not a terminal (a cron log), a plain line every
///   few seconds and at each phase;
/// - with `--progress=json`, one JSON object per line, every second and at each phase.
///
/// It counts what the writer applied, not what was read, and names the phase (writing,
/// building indexes, deleting, committing).
final class ProgressDisplay {
    enum Style { case terminal, lines, json }

    let style: Style
    private let started = Date()
    private var lastDraw = Date.distantPast
    private var lastPhase: String?
    private var drawn = false
    /// Seconds between plain or JSON lines (`SQLIMPORT_PROGRESS_INTERVAL` overrides, for tests).
    private let interval: TimeInterval

    init(style: Style) {
        self.style = style
        let environment = ProcessInfo.processInfo.environment["SQLIMPORT_PROGRESS_INTERVAL"].flatMap(Double.init)
        interval = environment ?? (style == .terminal ? 0.2 : style == .json ? 1 : 5)
    }

    /// The display a run gets, or nil: without a flag only a terminal (not `TERM=dumb`)
    /// shows progress; `--quiet` shows none.
    static func make(mode: ProgressMode?, quiet: Bool) -> ProgressDisplay? {
        if quiet { return nil }
        let terminal = isatty(STDERR_FILENO) == 1 && ProcessInfo.processInfo.environment["TERM"] != "dumb"
        switch mode {
        case .json: return ProgressDisplay(style: .json)
        case .on: return ProgressDisplay(style: terminal ? .terminal : .lines)
        case nil: return terminal ? ProgressDisplay(style: .terminal) : nil
        }
    }

    func update(_ progress: ImportProgress) {
        guard isDue(phase: progress.phase.rawValue) else { return }
        let elapsed = max(Date().timeIntervalSince(started), 0.001)
        draw(text(progress, elapsed: elapsed), json: json(progress, elapsed: elapsed))
    }

    func finish() {
        if drawn { StandardOutput.write("\r\u{1B}[K", to: STDERR_FILENO) }
        drawn = false
    }

    /// A snapshot's progress: `compressing · 45.0% · 120.0 / 260.0 MB`.
    func update(_ progress: SnapshotProgress) {
        guard isDue(phase: progress.phase.rawValue) else { return }
        let fraction = progress.totalBytes.map { $0 > 0 ? Double(progress.bytesDone) / Double($0) : 1 }
        var parts = [progress.phase.rawValue]
        if let fraction { parts.append(String(format: "%.1f%%", fraction * 100)) }
        if let total = progress.totalBytes {
            parts.append(String(format: "%.1f / %.1f MB", Double(progress.bytesDone) / 1_000_000, Double(total) / 1_000_000))
        }
        draw(parts.joined(separator: " · "), json: "{\"phase\":\"\(progress.phase.rawValue)\",\"bytesDone\":\(progress.bytesDone)" + (progress.totalBytes.map { ",\"totalBytes\":\($0)" } ?? "") + "}")
    }

    /// A new phase draws at once; the same phase at most once per `interval`.
    private func isDue(phase: String) -> Bool {
        let now = Date()
        guard phase != lastPhase || now.timeIntervalSince(lastDraw) >= interval else { return false }
        lastDraw = now
        lastPhase = phase
        return true
    }

    private func draw(_ text: String, json: String) {
        switch style {
        case .json: StandardOutput.write(json + "\n", to: STDERR_FILENO)
        case .lines: StandardOutput.write("sqlimport: progress: " + text + "\n", to: STDERR_FILENO)
        case .terminal:
            StandardOutput.write("\r\u{1B}[K" + String(text.prefix(max(Self.terminalWidth() - 1, 10))), to: STDERR_FILENO)
            drawn = true
        }
    }

    /// `writing · 45.0% · 450,000 rows · 180K rows/s · ETA 3 s`
    func text(_ progress: ImportProgress, elapsed: Double) -> String {
        var parts = [progress.phase.rawValue]
        if progress.phase == .writing, let fraction = progress.fractionWritten {
            parts.append(String(format: "%.1f%%", fraction * 100))
        }
        parts.append("\(SummaryFormatter.grouped(progress.rowsWritten)) rows")
        parts.append("\(SummaryFormatter.abbreviated(Double(progress.rowsWritten) / elapsed)) rows/s")
        if progress.phase == .writing, let fraction = progress.fractionWritten, fraction > 0.01 {
            parts.append(String(format: "ETA %.0f s", elapsed * (1 - fraction) / fraction))
        }
        return parts.joined(separator: " · ")
    }

    func json(_ progress: ImportProgress, elapsed: Double) -> String {
        var fields = [
            "\"phase\":\"\(progress.phase.rawValue)\"", "\"rowsRead\":\(progress.rowsRead)", "\"rowsWritten\":\(progress.rowsWritten)",
            "\"bytesRead\":\(progress.bytesRead)", String(format: "\"elapsedSeconds\":%.3f", elapsed),
        ]
        if let total = progress.totalBytes { fields.append("\"totalBytes\":\(total)") }
        if let fraction = progress.fractionWritten { fields.append(String(format: "\"fraction\":%.4f", fraction)) }
        return "{" + fields.joined(separator: ",") + "}"
    }

    static func terminalWidth() -> Int {
        var size = winsize()
        if ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return Int(ProcessInfo.processInfo.environment["COLUMNS"] ?? "") ?? 80
    }
}

/// Writes to standard output and standard error that never stop the process: a closed or
/// broken stream (`2>&-`, a log pipe that exited, `| head`) loses the text, and the run
/// keeps its own exit code. (Foundation's `FileHandle.write(_:)` traps on such an error.)
enum StandardOutput {
    /// Standard output was closed when the process started (`>&-`); it is /dev/null now
    /// (`SQLImportCommand.main`), and the JSON report it was to carry is lost.
    nonisolated(unsafe) static var wasClosedAtStart = false
    /// Standard input was closed when the process started (`<&-`): `-` is refused.
    nonisolated(unsafe) static var stdinWasClosedAtStart = false

    /// Whether `path` is standard output: `-`, or a name of descriptor 1.
    static func isNamed(by path: String) -> Bool {
        if path == "-" { return true }
        let resolved = AtomicOutputFile.resolvedLink(path)
        return ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1", "/proc/\(getpid())/fd/1"].contains(resolved)
    }

    /// Refuses to send `what` to standard output when it was closed at start (`>&-`):
    /// the bytes would go to the /dev/null put in its place, and the run would say it
    /// delivered them.
    static func refuseIfClosedAtStart(sending what: String) throws {
        guard wasClosedAtStart else { return }
        FileHandle.standardError.writeLine(
            "sqlimport: error: standard output was closed when sqlimport started (>&-), so \(what) would go nowhere; write it to a file (-o FILE), or leave standard output open")
        throw ExitCode(ExitStatus.ioError)
    }

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
