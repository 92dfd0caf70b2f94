import Foundation

/// Keeps a fix every `minimumDistanceMeters` (CoreLocation's `distanceFilter` rule).
///
/// A fix is *delivered* when it is at least the minimum distance from the last **delivered**
/// fix (equality delivers), so a slow creep is still reported once it adds up; the first fix
/// is always delivered. Travelled distance sums the legs between delivered fixes only, so
/// stationary jitter below the minimum adds nothing.
public struct DistanceFilter: Sendable, Hashable {
  /// The default minimum distance between delivered fixes, metres.
  public static let defaultMinimumDistanceMeters: Double = 10

  /// The minimum distance between delivered fixes, metres.
  public let minimumDistanceMeters: Double
  /// The last delivered position, nil before the first fix.
  public private(set) var lastDelivered: Coordinate?
  /// The sum of the legs between delivered fixes, metres.
  public private(set) var travelledMeters: Double
  /// How many fixes were delivered.
  public private(set) var deliveredCount = 0
  private var cosLastLatitude: Double = 1

  /// Creates a filter; `lastDelivered` and `travelledMeters` resume after a restart.
  /// - Throws: `TrackingError.invalidConfiguration` for a negative or non-finite distance.
  public init(
    minimumDistanceMeters: Double = DistanceFilter.defaultMinimumDistanceMeters,
    lastDelivered: Coordinate? = nil, travelledMeters: Double = 0
  ) throws(TrackingError) {
    guard minimumDistanceMeters.isFinite, minimumDistanceMeters >= 0 else {
      throw .invalidConfiguration(
        "distance filter \(minimumDistanceMeters) m: must be a finite number >= 0")
    }
    self.init(
      validMinimumDistanceMeters: minimumDistanceMeters, lastDelivered: lastDelivered,
      travelledMeters: travelledMeters)
  }

  /// A filter whose distance is known to be finite and >= 0.
  init(
    validMinimumDistanceMeters minimumDistanceMeters: Double, lastDelivered: Coordinate?,
    travelledMeters: Double
  ) {
    self.minimumDistanceMeters = minimumDistanceMeters
    self.lastDelivered = lastDelivered
    self.travelledMeters = travelledMeters
    if let lastDelivered { cosLastLatitude = cos(lastDelivered.latitude * radiansPerDegree) }
  }

  /// Decides whether `coordinate` is delivered; when it is, it becomes the reference and its
  /// leg is added to `travelledMeters`.
  /// - Returns: The leg length in metres when delivered (0 for the first fix), else nil.
  /// - Complexity: O(1), at most one great-circle distance.
  public mutating func deliver(_ coordinate: Coordinate) -> Double? {
    guard let last = lastDelivered else {
      lastDelivered = coordinate
      cosLastLatitude = cos(coordinate.latitude * radiansPerDegree)
      deliveredCount += 1
      return 0
    }
    // Certainly too close: no haversine needed (the common case for a slow worker).
    if last.distanceUpperBound(to: coordinate, cosLatitude: cosLastLatitude)
      < minimumDistanceMeters
    {
      return nil
    }
    let leg = last.distance(to: coordinate)
    guard leg >= minimumDistanceMeters else { return nil }
    lastDelivered = coordinate
    cosLastLatitude = cos(coordinate.latitude * radiansPerDegree)
    travelledMeters += leg
    deliveredCount += 1
    return leg
  }
}
