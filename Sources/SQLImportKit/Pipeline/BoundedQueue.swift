import Foundation

/// A blocking FIFO of fixed capacity between the reading thread and the writing one.
/// `push` waits while the queue is full, so a fast reader cannot run ahead of the
/// writer by more than `capacity` batches: memory stays bounded.
final class BoundedQueue<Element>: @unchecked Sendable {
    private var items: [Element] = []
    private let capacity: Int
    private let condition = NSCondition()
    private var closed = false

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Appends `element`; returns false (dropping it) once the queue is closed.
    @discardableResult
    func push(_ element: Element) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while items.count >= capacity && !closed { condition.wait() }
        if closed { return false }
        items.append(element)
        condition.broadcast()
        return true
    }

    /// Removes the oldest element, waiting for one; nil once closed and empty.
    func pop() -> Element? {
        condition.lock()
        defer { condition.unlock() }
        while items.isEmpty && !closed { condition.wait() }
        if items.isEmpty { return nil }
        let element = items.removeFirst()
        condition.broadcast()
        return element
    }

    /// Wakes every waiter; later pushes are dropped, pops drain what is left.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}
