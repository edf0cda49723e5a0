import Foundation

/// A value behind a lock whose waiters sleep at once and whose owner may take it again before a
/// woken waiter runs (a default pthread mutex): for a lock taken by every request on more
/// threads than cores. The standard library's `Mutex` spins first and then hands the lock to a
/// waiter through the kernel (a priority-inheriting futex): with a dozen threads on two cores
/// its owner is often switched out, and its waiters spin and queue behind it.
package final class SleepingLock<Value>: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var value: Value

    package init(_ value: sending Value) {
        self.value = value
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value, the lock held.
    package func withLock<T, E: Error>(_ body: (inout sending Value) throws(E) -> sending T) throws(E) -> sending T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
