import Foundation

/// Stops a run from another thread (a signal handler, a UI): reading stops, the open
/// transaction rolls back (what `--commit-every` committed stays), and the run throws
/// `ImportError.interrupted`.
public final class Cancellation: @unchecked Sendable {
    private let lock = NSLock()
    private var signalNumber: Int32?
    private var handlers: [() -> Void] = []

    public init() {}

    /// Requests the stop; `signal` is reported back (2 for SIGINT, 15 for SIGTERM).
    public func cancel(signal: Int32) {
        lock.lock()
        if signalNumber == nil { signalNumber = signal }
        let pending = handlers
        handlers.removeAll()
        lock.unlock()
        for handler in pending { handler() }
    }

    /// The signal that cancelled the run, if any.
    public var signal: Int32? {
        lock.lock()
        defer { lock.unlock() }
        return signalNumber
    }

    /// Runs `handler` on cancellation (at once if already cancelled).
    func onCancel(_ handler: @escaping () -> Void) {
        lock.lock()
        if signalNumber != nil {
            lock.unlock()
            handler()
            return
        }
        handlers.append(handler)
        lock.unlock()
    }
}
