#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A growable array of plain values for the hot path: appends are a bounds check and a
/// store, with no copy-on-write test and no dynamic exclusivity check (a Swift `Array`
/// held in a class pays both on every append; profiling the JSON reader showed them at
/// about a quarter of its time). Owned by one thread at a time.
package final class GrowableBuffer<Element: BitwiseCopyable> {
    /// The mutable state lives behind a pointer: Swift checks exclusive access to a
    /// class's stored properties at run time, on every mutation, but not to memory it
    /// reaches through an unsafe pointer.
    private struct State {
        var base: UnsafeMutablePointer<Element>
        var count: Int
        var capacity: Int
    }

    private let state: UnsafeMutablePointer<State>

    init(capacity: Int = 1024) {
        let capacity = max(capacity, 16)
        state = .allocate(capacity: 1)
        state.initialize(to: State(base: Self.allocate(capacity), count: 0, capacity: capacity))
    }

    deinit {
        free(state.pointee.base)
        state.deallocate()
    }

    /// malloc'd, so that `grow` can realloc: a large block grows in place (mremap)
    /// instead of being copied into a second one of twice the size.
    private static func allocate(_ capacity: Int) -> UnsafeMutablePointer<Element> {
        malloc(capacity * MemoryLayout<Element>.stride)!.assumingMemoryBound(to: Element.self)
    }

    @inline(__always) package var base: UnsafeMutablePointer<Element> { state.pointee.base }
    @inline(__always) package var count: Int { state.pointee.count }
    package var isEmpty: Bool { state.pointee.count == 0 }

    @inline(__always) package subscript(index: Int) -> Element {
        get {
            precondition(index >= 0 && index < state.pointee.count, "index out of range")
            return state.pointee.base[index]
        }
        set {
            precondition(index >= 0 && index < state.pointee.count, "index out of range")
            state.pointee.base[index] = newValue
        }
    }

    /// Makes room for `extra` more elements.
    @inline(__always) func reserve(_ extra: Int) {
        if state.pointee.count + extra > state.pointee.capacity { grow(to: state.pointee.count + extra) }
    }

    @inline(never) private func grow(to needed: Int) {
        var newCapacity = state.pointee.capacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        state.pointee.base = realloc(state.pointee.base, newCapacity * MemoryLayout<Element>.stride)!.assumingMemoryBound(to: Element.self)
        state.pointee.capacity = newCapacity
    }

    @inline(__always) func append(_ element: Element) {
        if state.pointee.count == state.pointee.capacity { grow(to: state.pointee.count + 1) }
        state.pointee.base[state.pointee.count] = element
        state.pointee.count += 1
    }

    @inline(__always) func append(_ elements: UnsafePointer<Element>, count extra: Int) {
        reserve(extra)
        (state.pointee.base + state.pointee.count).update(from: elements, count: extra)
        state.pointee.count += extra
    }

    func append(contentsOf elements: UnsafeBufferPointer<Element>) {
        guard let start = elements.baseAddress else { return }
        append(start, count: elements.count)
    }

    func append(contentsOf elements: some Sequence<Element>) {
        for element in elements { append(element) }
    }

    /// Drops the elements from `newCount` on.
    @inline(__always) func truncate(to newCount: Int) {
        precondition(newCount >= 0 && newCount <= state.pointee.count)
        state.pointee.count = newCount
    }

    func removeAll() { state.pointee.count = 0 }

    /// Empties the buffer and gives its memory back.
    func releaseMemory() {
        state.pointee.base = realloc(state.pointee.base, 16 * MemoryLayout<Element>.stride)!.assumingMemoryBound(to: Element.self)
        state.pointee.capacity = 16
        state.pointee.count = 0
    }

    package func withUnsafeBufferPointer<Result>(_ body: (UnsafeBufferPointer<Element>) throws -> Result) rethrows -> Result {
        try body(UnsafeBufferPointer(start: state.pointee.base, count: state.pointee.count))
    }
}

extension GrowableBuffer where Element == UInt8 {
    func append(contentsOf bytes: UnsafeRawBufferPointer) {
        guard let start = bytes.baseAddress else { return }
        append(start.assumingMemoryBound(to: UInt8.self), count: bytes.count)
    }

    /// The UTF-8 text of `range`.
    func string(_ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(start: base + range.lowerBound, count: range.count), as: UTF8.self)
    }
}

/// The batch's text store.
package typealias ByteStore = GrowableBuffer<UInt8>
