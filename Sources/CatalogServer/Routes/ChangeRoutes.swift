import CatalogKit
import HTTPTypes
import Hummingbird
import NIOCore
import ServiceLifecycle

/// `GET /api/changes`: the parameters and body of `catalog changes --json`; and
/// `GET /api/events`: server-sent events, one `generation` event when the stream opens and one
/// each time the catalog's generation moves, a comment every 15 seconds. With access control
/// on, a stream ends at the first wake-up after its token is revoked or its session expires.
struct ChangeRoutes {
    let service: CatalogService
    let events: GenerationEvents
    let access: AccessControl?

    func add(to router: Router<CatalogRequestContext>) {
        router.get("/api/changes") { request, _ -> Response in
            let changes = try ChangeRequest(parameters: PageRequest.parameters(query: request.uri.query ?? ""))
            let set = try await service.changes(changes)
            return JSONResponse.make(ChangeText.json(set), request: request, generation: set.to, made: service.made())
        }

        // HEAD has no body, so no stream: it takes no place. Its own route, for a stream's
        // framing (the HEAD made from GET's answer says `Content-Length: 0`: an empty stream).
        router.head("/api/events") { request, _ -> Response in
            try APIError.refuseParameters(request)
            return Response(status: .ok, headers: Self.streamHeaders, body: ResponseBody { try await $0.finish(nil) })
        }

        router.get("/api/events") { request, context -> Response in
            try APIError.refuseParameters(request)
            let headers = Self.streamHeaders
            // A place taken now, under the lock that counts streams, so that many requests at
            // once cannot all pass: event streams never take every connection.
            guard let ticket = events.reserve() else {
                var refused = APIError(status: 503, message: "too many event streams are open (\(events.maxClients)); try again")
                refused.headers[.retryAfter] = "5"
                throw refused
            }
            let pages = service.pages
            let first: Int64
            do { first = try await service.run { try pages.generation() } } catch {
                events.release(ticket)
                throw error
            }
            let events = events
            let access = access
            let channel = context.channel
            // A connection gone before its stream began (reset as the request came) gives it
            // back now, not after the minute: a no-op once the stream has taken it.
            channel.closeFuture.whenComplete { _ in events.release(ticket) }
            return Response(status: .ok, headers: headers, body: ResponseBody { writer in
                let (id, wakes) = events.subscribe(at: first, ticket: ticket)
                defer { events.unsubscribe(id) }
                // A client that goes ends its stream at once, and gives back its place.
                channel.closeFuture.whenComplete { _ in events.finish(id) }
                channel.eventLoop.execute {
                    (try? channel.pipeline.syncOperations.handler(type: ConnectionGuard.self))?.closeWithPeer()
                }
                try await withGracefulShutdownHandler {
                    try await writer.write(ByteBuffer(string: "retry: 2000\n\n" + Self.event(first)))
                    var sent = first
                    for await wake in wakes {
                        if let access, !access.authenticates(request) { break }
                        // Back too: a backup put back under the server. A wake-up comes only once
                        // the poller has read the generation after this stream began with its own.
                        if let now = events.generation, now != sent {
                            try await writer.write(ByteBuffer(string: Self.event(now)))
                            sent = now
                        } else if wake == .keepAlive {
                            try await writer.write(ByteBuffer(string: ": keep-alive\n\n"))
                        }
                    }
                } onGracefulShutdown: {
                    events.finish(id)
                }
                try await writer.finish(nil)
            })
        }
    }

    static let streamHeaders: HTTPFields = [.contentType: "text/event-stream", .cacheControl: "no-store",
                                            HTTPField.Name("X-Accel-Buffering")!: "no"]

    static func event(_ generation: Int64) -> String {
        "event: generation\nid: \(generation)\ndata: \(generation)\n\n"
    }
}
