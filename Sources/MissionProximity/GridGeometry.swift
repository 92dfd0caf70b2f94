import Foundation

/// How coordinates map to cells: an equal-angle latitude/longitude grid fitted to the data.
///
/// The grid covers the data's bounding box (or every longitude when the data spans more than
/// half the globe, in which case columns wrap around ±180). Cells are `cellLatitude` by
/// `cellLongitude` degrees, with `cellLongitude = cellLatitude / cos(mid-latitude)` so that
/// cells are roughly square on the ground where the data is. A position outside the box is
/// clamped into the nearest edge row or column: the mapping stays monotone, so every query
/// still visits every cell that can hold a match, and the index re-fits the grid as it grows.
///
/// Longitude 180 is filed under -180 (`pointColumn`), so the two names of the antimeridian
/// share a cell.
struct GridGeometry: Sendable {
  /// South edge of row 0, degrees.
  let south: Double
  /// West edge of column 0, degrees (-180 when `wraps`).
  let west: Double
  /// Cell height, degrees of latitude.
  let cellLatitude: Double
  /// Cell width, degrees of longitude.
  let cellLongitude: Double
  private let inverseCellLatitude: Double
  private let inverseCellLongitude: Double
  /// Number of rows (≥ 1).
  let rows: Int
  /// Number of columns (≥ 1).
  let columns: Int
  /// Whether the columns cover all 360° of longitude, so column `columns` is column 0 again.
  let wraps: Bool

  /// The number of cells.
  var cellCount: Int { rows * columns }

  /// The smallest cell edge allowed, degrees (about 1 m): keeps a grid of identical points
  /// from asking for billions of cells.
  static let minimumCellDegrees = 1e-5

  init(
    south: Double, west: Double, cellLatitude: Double, cellLongitude: Double, rows: Int,
    columns: Int, wraps: Bool
  ) {
    self.south = south
    self.west = west
    self.cellLatitude = cellLatitude
    self.cellLongitude = cellLongitude
    self.inverseCellLatitude = 1 / cellLatitude
    self.inverseCellLongitude = 1 / cellLongitude
    self.rows = rows
    self.columns = columns
    self.wraps = wraps
  }

  /// A grid for `coordinates` with about `targetPerCell` positions per cell on average over the
  /// data's bounding box.
  ///
  /// - Complexity: O(n).
  static func fitting(_ coordinates: [Coordinate], targetPerCell: Double) -> GridGeometry {
    guard !coordinates.isEmpty else {
      return GridGeometry(
        south: -90, west: -180, cellLatitude: 180, cellLongitude: 360, rows: 1, columns: 1,
        wraps: true)
    }
    var minLat = Double.infinity
    var maxLat = -Double.infinity
    var minLon = Double.infinity
    var maxLon = -Double.infinity
    for entry in coordinates {
      minLat = min(minLat, entry.latitude)
      maxLat = max(maxLat, entry.latitude)
      let lon = entry.longitude == 180 ? -180 : entry.longitude
      minLon = min(minLon, lon)
      maxLon = max(maxLon, lon)
    }
    let wanted = max(
      1, min(Double(coordinates.count) / targetPerCell, 4 * Double(coordinates.count)))
    let wraps = maxLon - minLon > 180
    let latSpan = max(maxLat - minLat, minimumCellDegrees)
    let lonSpan = wraps ? 360 : max(maxLon - minLon, minimumCellDegrees)
    // Square cells on the ground at the middle latitude; never narrower than 1/20 of the
    // height so that polar data does not explode the column count.
    let midLat = (minLat + maxLat) / 2
    let aspect = max(cos(midLat * radiansPerDegree), 0.05)
    var cellLat = max((latSpan * lonSpan * aspect / wanted).squareRoot(), minimumCellDegrees)
    var cellLon = max(cellLat / aspect, minimumCellDegrees)
    let rows = max(1, min(Int((latSpan / cellLat).rounded(.up)), 1 << 20))
    var columns: Int
    if wraps {
      columns = max(1, min(Int((360 / cellLon).rounded()), 1 << 20))
      cellLon = 360 / Double(columns)
    } else {
      columns = max(1, min(Int((lonSpan / cellLon).rounded(.up)), 1 << 20))
      cellLon = max(lonSpan / Double(columns), minimumCellDegrees)
    }
    cellLat = max(latSpan / Double(rows), minimumCellDegrees)
    return GridGeometry(
      south: minLat, west: wraps ? -180 : minLon, cellLatitude: cellLat, cellLongitude: cellLon,
      rows: rows, columns: columns, wraps: wraps)
  }

  /// The row holding latitude `lat`, clamped to the grid.
  @inline(__always)
  func row(_ lat: Double) -> Int {
    let r = ((lat - south) * inverseCellLatitude).rounded(.down)
    if r <= 0 { return 0 }
    if r >= Double(rows - 1) { return rows - 1 }
    return Int(r)
  }

  /// The column whose span holds `lon`, clamped to the grid (180 maps to the last column).
  @inline(__always)
  func column(_ lon: Double) -> Int {
    let c = ((lon - west) * inverseCellLongitude).rounded(.down)
    if c <= 0 { return 0 }
    if c >= Double(columns - 1) { return columns - 1 }
    return Int(c)
  }

  /// The column a stored position at `lon` lives in (180 is filed as -180).
  @inline(__always)
  func pointColumn(_ lon: Double) -> Int { column(lon == 180 ? -180 : lon) }

  /// The cell a stored position lives in.
  @inline(__always)
  func cell(latitude: Double, longitude: Double) -> Int {
    row(latitude) * columns + pointColumn(longitude)
  }

  /// South edge of row `r`, degrees.
  @inline(__always)
  func rowSouth(_ r: Int) -> Double { south + Double(r) * cellLatitude }

  /// West edge of column `c` (may be outside [-180, 180] for a wrapping `c`), degrees.
  @inline(__always)
  func columnWest(_ c: Int) -> Double { west + Double(c) * cellLongitude }

  /// Adds the columns that can hold stored positions with a longitude in [`lo`, `hi`]
  /// (-180 ≤ lo ≤ hi ≤ 180) to `spans`.
  func addColumns(from lo: Double, to hi: Double, into spans: inout ColumnSpans) {
    spans.add(column(lo), column(hi))
    // A stored 180 lives in column(-180).
    if hi >= 180 { spans.add(column(-180), column(-180)) }
  }
}
