/// Where the tracker finds the geofences of other missions near the worker.
///
/// The tracker asks again whenever the worker has moved more than a refresh distance from the
/// last query point, with a radius large enough that no fence the worker can reach before the
/// next query is missed. A spatial index (the proximity grid) is the natural implementation;
/// a closure over an array is enough for tests.
public protocol FenceCatalog: Sendable {
  /// The fences whose centre lies within `radiusMeters` of `coordinate`.
  func fences(within radiusMeters: Double, of coordinate: Coordinate) -> [Geofence]
}

/// A `FenceCatalog` backed by a closure.
public struct ClosureFenceCatalog: FenceCatalog {
  private let body: @Sendable (Double, Coordinate) -> [Geofence]

  /// Wraps `body(radiusMeters, coordinate)`.
  public init(_ body: @escaping @Sendable (Double, Coordinate) -> [Geofence]) { self.body = body }

  /// Calls the closure.
  public func fences(within radiusMeters: Double, of coordinate: Coordinate) -> [Geofence] {
    body(radiusMeters, coordinate)
  }
}
