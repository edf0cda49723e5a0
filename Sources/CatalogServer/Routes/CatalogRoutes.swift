import CatalogKit
import HTTPTypes
import Hummingbird

/// `GET /api/stats`, `/api/layouts`, `/api/health` and `/api/openapi.yaml`.
struct CatalogRoutes {
    let service: CatalogService
    /// Told of the database's outages and returns that health checks see, which are answered,
    /// not thrown: a server that only a load balancer's health checks reach logs them too.
    let outages: OutageLog

    func add(to router: Router<CatalogRequestContext>) {
        router.get("/api/stats") { request, _ -> Response in
            try APIError.refuseParameters(request)
            let catalog = service.catalog
            let stats = try await service.run { try catalog.stats() }
            let body = StatsText.json(stats)
            // Sizes and stored layouts change without a new generation: the tag is the body's.
            return JSONResponse.make(body, request: request, generation: stats.generation, made: service.made(), tagging: body)
        }

        router.get("/api/layouts") { request, _ -> Response in
            try APIError.refuseParameters(request)
            let catalog = service.catalog
            let (generation, layouts) = try await service.run { (try catalog.generation(), try catalog.layouts()) }
            let body = #"{"generation":\#(generation),"layouts":["#
                + layouts.map { StatsText.json($0, current: generation) }.joined(separator: ",") + "]}"
            return JSONResponse.make(body, request: request, generation: generation, made: service.made(), tagging: body)
        }

        // The catalog's generation when it is known without reading (no I/O, or two `stat`
        // calls), else read: a 503 says the database cannot be reached, and the server keeps
        // running, to answer again once it is back.
        router.get("/api/health") { request, _ -> Response in
            try APIError.refuseParameters(request)
            let pages = service.pages
            do {
                let generation: Int64
                if let known = pages.knownGeneration() {
                    generation = known
                } else {
                    generation = try await service.run { try pages.generation() }
                    outages.answered() // read: the database answers (a generation known already says nothing of it)
                }
                return Self.health(.ok, #"{"status":"ok","generation":\#(generation)}"#)
            } catch let error as StoreError {
                guard case .unreachable = error else { throw error }
                outages.failed(error)
                let message = error.isFileReplaced ? APIError.fileReplaced : "the catalog's database cannot be reached"
                return Self.health(.serviceUnavailable, #"{"status":"unreachable","message":"\#(message)"}"#)
            }
        }

        router.get("/api/openapi.yaml") { request, _ -> Response in
            try APIError.refuseParameters(request)
            return Response(status: .ok, headers: [.contentType: "application/yaml"],
                     body: ResponseBody(byteBuffer: ByteBuffer(string: EmbeddedAssets.files["openapi.yaml"] ?? "")))
        }
    }

    private static func health(_ status: HTTPResponse.Status, _ body: String) -> Response {
        Response(status: status, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }
}
