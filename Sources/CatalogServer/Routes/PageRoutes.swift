import CatalogKit
import Hummingbird

/// `GET /api/page`: the parameters of `catalog page`, the body of `catalog page --json`.
struct PageRoutes {
    let service: CatalogService

    func add(to router: Router<BasicRequestContext>) {
        router.get("/api/page") { request, _ -> Response in
            let query = request.uri.query ?? ""
            let pageRequest = try PageRequest(parameters: PageRequest.parameters(query: query))
            let page = try await service.page(pageRequest)
            let what = "\(pageRequest.configuration.key) \(pageRequest.position) \(pageRequest.height)"
            return JSONResponse.make(PageText.json(page), request: request, generation: page.generation, tagging: what)
        }
    }
}
