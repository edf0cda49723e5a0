import CatalogKit
import Hummingbird

/// `GET /api/page`: the parameters of `catalog page`, the body of `catalog page --json`; and
/// `GET /api/sections`: the layout parameters, the body of `catalog sections --json`.
struct PageRoutes {
    let service: CatalogService

    func add(to router: Router<CatalogRequestContext>) {
        router.get("/api/page") { request, _ -> Response in
            let query = request.uri.query ?? ""
            let pageRequest = try PageRequest(parameters: PageRequest.parameters(query: query))
            let page = try await service.page(pageRequest)
            return JSONResponse.make(PageText.json(page), request: request, generation: page.generation, made: service.made(), tagging: pageRequest.tagText)
        }

        router.get("/api/snap") { request, _ -> Response in
            let snap = try SnapRequest(parameters: PageRequest.parameters(query: request.uri.query ?? ""))
            let pages = service.pages
            let generation = try await service.run { try pages.generation() } // may read: off the event loop
            let target = try await service.snap(snap)
            return JSONResponse.make(PageText.json(target), request: request, generation: generation, made: service.made())
        }

        router.get("/api/sections") { request, _ -> Response in
            let configuration = try LayoutConfiguration(parameters: PageRequest.parameters(query: request.uri.query ?? ""))
            let list = try await service.sections(configuration)
            return JSONResponse.make(SectionText.json(list), request: request, generation: list.generation, made: service.made(), tagging: configuration.key)
        }
    }
}
