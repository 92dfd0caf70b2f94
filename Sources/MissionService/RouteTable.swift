/// The routes of a service in the order registered: finds the handler for a method and path,
/// or says which methods the path allows (for 405 and its `Allow` header).
struct RouteTable: Sendable {
  /// What a request's method and path find.
  enum Match {
    /// This route, with the path's parameters.
    case route(Route, parameters: [String: String])
    /// The path exists, but not for this method: the methods it has, in table order.
    case wrongMethod(allowed: [String])
    /// No route has this path.
    case notFound
  }

  let routes: [Route]

  init(_ routes: [Route]) { self.routes = routes }

  /// The route for `method` (`GET` for a `HEAD`) on the path given as its segments.
  func match(method: String, segments: [String]) -> Match {
    var allowed: [String] = []
    for route in routes {
      guard let parameters = route.parameters(of: segments) else { continue }
      if route.method == method { return .route(route, parameters: parameters) }
      if !allowed.contains(route.method) { allowed.append(route.method) }
    }
    return allowed.isEmpty ? .notFound : .wrongMethod(allowed: allowed)
  }
}
