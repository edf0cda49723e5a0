import CatalogKit
@testable import CatalogServer
import Logging
import ServiceLifecycle
import Synchronization
import Testing

/// The layouts a server holds while storing them: as many at once as its limit, a computation
/// past it waiting for a place until a store ends.
@Suite struct LayoutsBeingStoredTests {
    @Test(.timeLimit(.minutes(1))) func aComputationPastTheLimitWaitsUntilAStoreEnds() async throws {
        let served = try ServedCatalog(images: [], imported: 200)
        let layout = try #require(try served.catalog.computeLayout(try PageRequest(query: "width=375").configuration))
        let stores = LayoutsBeingStored(limit: 1)
        await stores.reserve()
        let second = Task {
            await stores.reserve()
            stores.release()
            return true
        }
        try await waitUntil("the second computation waits") { stores.waiting == 1 }
        let (gate, open) = AsyncStream<Void>.makeStream()
        let entry = stores.start(layout, store: { _ in
            for await _ in gate { break }
            return true
        }, afterwards: {})
        #expect(stores.entry(layout.configuration.key)?.number == entry.number && stores.count == 1)
        #expect(stores.waiting == 1, "the place stays taken while the layout is being stored")
        open.yield()
        await entry.stored.value
        #expect(await second.value)
        try await waitUntil("every place given back") { stores.waiting == 0 && stores.count == 0 }
        await stores.reserve() // a place is free again: this does not wait
        stores.release()
    }

    /// On a graceful shutdown the service waits for the stores under way: its group ends only
    /// after the store held back here has ended.
    @Test(.timeLimit(.minutes(1))) func aGracefulShutdownWaitsForTheStoresUnderWay() async throws {
        let served = try ServedCatalog(images: [], imported: 200)
        let layout = try #require(try served.catalog.computeLayout(try PageRequest(query: "width=375").configuration))
        let stores = LayoutsBeingStored(limit: 2)
        let group = ServiceGroup(configuration: .init(services: [stores], logger: Logger(label: "test")))
        let storeEnded = Atomic<Bool>(false)
        let running = Task {
            try await group.run()
            return storeEnded.load(ordering: .relaxed)
        }
        await stores.reserve()
        let (gate, open) = AsyncStream<Void>.makeStream()
        _ = stores.start(layout, store: { _ in
            for await _ in gate { break }
            storeEnded.store(true, ordering: .relaxed)
            return true
        }, afterwards: {})
        await group.triggerGracefulShutdown()
        try await waitUntil("the service heard of the shutdown") { stores.isStopping }
        open.yield()
        #expect(try await running.value, "the group ended after the store")
        #expect(stores.count == 0 && stores.taken == 0)
    }
}
