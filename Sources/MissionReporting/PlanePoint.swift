/// A point on a plane: metres east/north in the local projection, or pixels on the page.
package struct PlanePoint: Sendable, Hashable {
  /// Horizontal coordinate (metres east, or pixels right).
  package var x: Double
  /// Vertical coordinate (metres north, or pixels down).
  package var y: Double

  /// Euclidean distance to `other`.
  func distance(to other: PlanePoint) -> Double {
    ((x - other.x) * (x - other.x) + (y - other.y) * (y - other.y)).squareRoot()
  }
}
