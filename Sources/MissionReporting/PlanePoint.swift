/// A point on a plane: metres east/north in the local projection, or pixels on the page.
struct PlanePoint: Sendable, Hashable {
  /// Horizontal coordinate (metres east, or pixels right).
  var x: Double
  /// Vertical coordinate (metres north, or pixels down).
  var y: Double

  /// Euclidean distance to `other`.
  func distance(to other: PlanePoint) -> Double {
    ((x - other.x) * (x - other.x) + (y - other.y) * (y - other.y)).squareRoot()
  }
}
