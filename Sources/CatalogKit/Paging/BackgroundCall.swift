import Foundation

/// A call run on a thread of its own from the moment it is made; `wait` returns what it
/// returned or throws what it threw. Pager's store of a layout computed meanwhile.
final class BackgroundCall<Value: Sendable, Failure: Error>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    // Each written by the thread before `done` is signalled, read after.
    private var body: (@Sendable () throws(Failure) -> Value)?
    private var result: Result<Value, Failure>?

    init(_ body: @escaping @Sendable () throws(Failure) -> Value) {
        self.body = body
        Thread.detachNewThread { [self] in
            do {
                // Released before `wait` returns: what the call holds (a catalog's store) is
                // let go when its caller expects, not when the thread ends.
                let call = self.body!
                self.body = nil
                do throws(Failure) { result = .success(try call()) } catch { result = .failure(error) }
            }
            done.signal()
        }
    }

    /// Waits for the call to return; call it once.
    func wait() throws(Failure) -> Value {
        done.wait()
        return try result!.get()
    }
}
