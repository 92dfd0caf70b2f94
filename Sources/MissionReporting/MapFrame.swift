/// Places the projected plane (metres east/north) in the map rectangle of the page (pixels,
/// y down) at one scale for both axes, so that distances keep their proportions.
package struct MapFrame: Sendable {
  /// The map rectangle on the page: left, top, width, height in pixels.
  let left: Double
  let top: Double
  let width: Double
  let height: Double
  /// Pixels per metre, the same in x and y.
  package let pixelsPerMeter: Double
  /// The plane point shown at the centre of the rectangle.
  let centerMeters: PlanePoint

  /// Fits the box `minX...maxX` × `minY...maxY` (metres) into the rectangle, leaving
  /// `paddingPixels` on every side. A box smaller than `minimumExtentMeters` is widened
  /// around its centre so that a single point or a tiny fence still gets a sensible scale.
  package init(
    left: Double, top: Double, width: Double, height: Double,
    minX: Double, maxX: Double, minY: Double, maxY: Double,
    paddingPixels: Double, minimumExtentMeters: Double = 20
  ) {
    self.left = left
    self.top = top
    self.width = width
    self.height = height
    let spanX = max(maxX - minX, minimumExtentMeters)
    let spanY = max(maxY - minY, minimumExtentMeters)
    let usableWidth = max(width - 2 * paddingPixels, 1)
    let usableHeight = max(height - 2 * paddingPixels, 1)
    let scale = min(usableWidth / spanX, usableHeight / spanY)
    pixelsPerMeter = scale.isFinite && scale > 0 ? scale : 1
    centerMeters = PlanePoint(x: (minX + maxX) / 2, y: (minY + maxY) / 2)
  }

  /// How far beyond a fence the fitted box reaches, as a factor of the fence's radius: some
  /// land around it, so that a fence never fills the map edge to edge.
  package static let landAroundFence = 1.35

  /// Fits the fences (`center` and radius in metres: for a mission being shown, its exit ring)
  /// with their land around them (`landAroundFence`) and `points`, as the report and the live
  /// map do.
  package init(
    left: Double, top: Double, width: Double, height: Double,
    fences: [(center: PlanePoint, radius: Double)], points: [PlanePoint], paddingPixels: Double
  ) {
    var (minX, maxX) = (Double.infinity, -Double.infinity)
    var (minY, maxY) = (Double.infinity, -Double.infinity)
    func include(_ point: PlanePoint, pad: Double) {
      minX = min(minX, point.x - pad)
      maxX = max(maxX, point.x + pad)
      minY = min(minY, point.y - pad)
      maxY = max(maxY, point.y + pad)
    }
    for fence in fences { include(fence.center, pad: fence.radius * Self.landAroundFence) }
    for point in points { include(point, pad: 0) }
    self.init(
      left: left, top: top, width: width, height: height, minX: minX, maxX: maxX, minY: minY,
      maxY: maxY, paddingPixels: paddingPixels)
  }

  /// The page position (pixels, y down) of a plane point (metres, y north).
  package func page(_ point: PlanePoint) -> PlanePoint {
    PlanePoint(
      x: left + width / 2 + (point.x - centerMeters.x) * pixelsPerMeter,
      y: top + height / 2 - (point.y - centerMeters.y) * pixelsPerMeter)
  }
}
