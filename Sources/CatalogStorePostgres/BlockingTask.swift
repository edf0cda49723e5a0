import Foundation
import NIOCore
import Synchronization

/// Runs async work (PostgresNIO's COPY has only an async API) for a synchronous caller, on a
/// thread of its own that the caller waits for. Not on Swift's shared pool: a caller that is
/// itself on one of its few threads would wait for a thread it is holding.
final class BlockingTask<T: Sendable>: Sendable {
    private let executor = ThreadExecutor()
    private let outcome = Mutex<Result<T, any Error>?>(nil)
    private let done = DispatchSemaphore(value: 0)

    /// Starts `body` on its thread; `wait()` for what it returns.
    init(_ body: @escaping @Sendable () async throws -> T) {
        Task(executorPreference: executor) { [self] in
            let result: Result<T, any Error>
            do { result = .success(try await body()) } catch { result = .failure(error) }
            finish(result)
        }
    }

    /// Ends the wait with `error` unless the body has finished: a body that may never return
    /// (PostgresNIO leaves a COPY on a connection that closed waiting for ever) is left behind.
    func fail(_ error: any Error) {
        finish(.failure(error))
    }

    /// The first outcome wins; the wait ends once.
    private func finish(_ result: Result<T, any Error>) {
        let first = outcome.withLock { current in
            guard current == nil else { return false }
            current = result
            return true
        }
        if first { done.signal() }
    }

    /// Blocks until the body has returned or thrown; once.
    func wait() throws -> T {
        done.wait()
        executor.stop()
        return try outcome.withLock { $0! }.get()
    }
}

/// A task executor that runs its jobs one at a time on one thread.
final class ThreadExecutor: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = [] // guarded by `condition`
    private var stopped = false

    init(name: String = "catalog.postgres.copy") {
        let thread = Thread { [self] in run() }
        thread.name = name
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    func stop() {
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            while jobs.isEmpty && !stopped { condition.wait() }
            if jobs.isEmpty {
                condition.unlock()
                return
            }
            // Every job queued so far, in order (not one `removeFirst` each: many connections'
            // statements may share this thread).
            let taken = jobs
            jobs.removeAll(keepingCapacity: true)
            condition.unlock()
            for job in taken { job.runSynchronously(on: asUnownedTaskExecutor()) }
        }
    }
}

/// A task executor that runs its jobs on a NIO event loop: a task that only sends statements on
/// that loop's connection and awaits their answers then never leaves the loop's thread. Its jobs
/// must not block (the loop's other channels wait meanwhile).
final class EventLoopExecutor: TaskExecutor, Sendable {
    let eventLoop: any EventLoop

    init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = self
        eventLoop.execute { job.runSynchronously(on: executor.asUnownedTaskExecutor()) }
    }
}
