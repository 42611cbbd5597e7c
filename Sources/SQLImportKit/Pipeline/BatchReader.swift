import Foundation

/// Describes one input once it has been opened.
public struct InputDescription: Sendable, Codable, Equatable {
    public var path: String
    public var format: InputFormat
    public var compression: Compression
    /// Size on disk, when the input is a regular file.
    public var bytes: Int64?
    /// Decompressed bytes read.
    public var bytesRead: Int64 = 0
}

/// Where the writing side gets its batches from.
protocol BatchSource: AnyObject {
    /// The next item; nil once everything has been delivered.
    func next() -> BatchReader.Item?
    /// Gives a batch back for reuse.
    func recycle(_ batch: RecordBatch)
    /// How many batches the writer may keep without recycling them (while it samples
    /// records to infer a new table's types) before the source would starve.
    var batchesTheWriterMayHold: Int { get }
    /// Sorts runs of records by key for the writer (`KeyOrder`), when the source can.
    var keyOrder: KeyOrder? { get }
}

extension BatchSource {
    var keyOrder: KeyOrder? { nil }
}

/// Reads every input of a run on its own thread and hands full batches to the writer
/// through a bounded queue; empty batches come back through a second queue for reuse,
/// so the steady state allocates nothing.
final class BatchReader: BatchSource, @unchecked Sendable {
    enum Item {
        case opened(index: Int, InputDescription)
        case batch(RecordBatch)
        case failed(Error)
        case finished
    }

    let paths: [String]
    let options: ReaderOptions
    let rowsPerBatch: Int
    let bytesPerBatch: Int
    let keepRaw: Bool
    let full: BoundedQueue<Item>
    private let empty: BoundedQueue<RecordBatch>
    private let namer = ColumnNamer()
    private var thread: Thread?
    private let done = DispatchSemaphore(value: 0)
    private var cancellation: Cancellation?
    let batchesTheWriterMayHold: Int
    /// Batches end at every multiple of this many records, where the writer commits.
    private let commitEvery: Int?
    /// Sorts runs by key once the writer knows the key (`KeyOrder`).
    let keyOrder: KeyOrder?
    /// The two batches sorted runs are read into, one filled while the writer writes
    /// the other: they are large, and only these two ever grow that large.
    private let runs = BoundedQueue<RecordBatch>(capacity: 2)
    /// Where a run is read before it is copied sorted into one of `runs`.
    private var stage: RecordBatch?

    /// - Parameter spareBatches: extra batches the writer may hold at once (while it
    ///   samples records to infer a new table's types).
    init(
        paths: [String], options: ReaderOptions, rowsPerBatch: Int = 4096, bytesPerBatch: Int = 2 << 20, depth: Int = 3, spareBatches: Int = 0,
        keepRaw: Bool = false, cancellation: Cancellation? = nil, commitEvery: Int? = nil, keyOrder: KeyOrder? = nil
    ) {
        self.commitEvery = commitEvery
        self.keyOrder = keyOrder
        if keyOrder != nil {
            for _ in 0 ..< 2 {
                let run = RecordBatch()
                run.isRun = true
                runs.push(run)
            }
        }
        // The pool is depth + 2 + spare: with spare + 1 held, the queue can still fill.
        batchesTheWriterMayHold = spareBatches + 1
        self.paths = paths
        self.options = options
        namer.exactNumberFields = options.exactNumberFields
        namer.numberTextFields = options.numberTextFields
        self.rowsPerBatch = rowsPerBatch
        self.bytesPerBatch = bytesPerBatch
        self.keepRaw = keepRaw
        full = BoundedQueue(capacity: depth)
        empty = BoundedQueue(capacity: depth + 2 + spareBatches)
        for _ in 0 ..< depth + 2 + spareBatches { empty.push(RecordBatch()) }
        self.cancellation = cancellation
        cancellation?.onCancel { [full, empty, runs] in
            // Wakes both sides: the writer sees the end of the queue and the cancellation.
            full.close()
            empty.close()
            runs.close()
        }
    }

    /// Starts the reading thread.
    func start() {
        let thread = Thread { [self] in
            run()
            done.signal()
        }
        thread.stackSize = 16 << 20
        thread.name = "sqlimport-reader"
        self.thread = thread
        thread.start()
    }

    /// Stops reading (after an error on the writing side) and waits for the thread.
    func stop() {
        keyOrder?.cancel()
        full.close()
        empty.close()
        runs.close()
        if thread != nil {
            // A cancelled reader may be blocked reading a pipe: do not wait for it long.
            if cancellation?.signal != nil {
                _ = done.wait(timeout: .now() + 1)
            } else {
                done.wait()
            }
            thread = nil
        }
    }

    func next() -> Item? {
        full.pop()
    }

    func recycle(_ batch: RecordBatch) {
        if batch.isRun {
            runs.push(batch)
        } else {
            // Once runs are sorted, the small batches are not read into again.
            if keyOrder?.spec != nil { batch.releaseMemory() }
            empty.push(batch)
        }
    }

    private func run() {
        var recordsRead = 0
        var batchesRead = 0
        for (index, path) in paths.enumerated() {
            do {
                let input = try InputSource(path: path)
                input.decode(options.encoding)
                let (reader, format) = try RecordReaders.make(input: input, options: options, namer: namer, keepRaw: keepRaw)
                guard full.push(.opened(index: index, InputDescription(path: path, format: format, compression: input.compression, bytes: input.fileSize))) else { return }
                var more = true
                while more {
                    let room = commitEvery.map { $0 - recordsRead % $0 } ?? Int.max
                    let batch: RecordBatch
                    // Past the batches the writer may hold before it decides, wait for
                    // its decision: runs then start at the same record whatever the
                    // timing (`KeyOrder`).
                    // (The batches before it are read as batches even when the writer
                    // decided early: whether it had was a matter of timing.)
                    if let keyOrder, batchesRead >= batchesTheWriterMayHold { keyOrder.awaitDecision() }
                    if let keyOrder, batchesRead >= batchesTheWriterMayHold, let spec = keyOrder.spec {
                        // Read into the stage, then copy it sorted into a free run.
                        let stage = self.stage ?? RecordBatch()
                        self.stage = stage
                        stage.reset(inputIndex: index)
                        stage.keepRawRecords = keepRaw
                        let limits = keyOrder.nextRunLimits
                        more = try reader.fill(stage, maxRows: min(room, limits.records), maxBytes: limits.textBytes)
                        guard let run = runs.pop() else { return }
                        keyOrder.sortRun(stage, into: run, by: spec)
                        batch = run
                    } else {
                        guard let next = empty.pop() else { return }
                        batch = next
                        batch.reset(inputIndex: index)
                        batch.keepRawRecords = keepRaw
                        more = try reader.fill(batch, maxRows: min(rowsPerBatch, room), maxBytes: bytesPerBatch)
                    }
                    recordsRead += batch.recordCount
                    // (An empty batch starts no session, so the writer decides nothing on it.)
                    if batch.rowCount > 0 { batchesRead += 1 }
                    batch.fileBytesConsumed = input.compression == .none ? batch.inputBytesConsumed : input.fileBytesConsumed
                    batch.endsInput = !more
                    batch.endsCommitInterval = commitEvery.map { batch.recordCount > 0 && recordsRead % $0 == 0 } ?? false
                    guard full.push(.batch(batch)) else { return }
                }
            } catch {
                full.push(.failed(error))
                return
            }
        }
        full.push(.finished)
    }
}
