/// The fixed cell grid of the `missions_by_cell` index (schema version 4): 1/64 degree of
/// latitude by 1/64 degree of longitude (about 1.7 km by 1.7 km × cos φ), numbered row by
/// row from the south-west, so the cells of one row form one range of keys.
///
/// SQLite computes a mission's key from its `lat` and `lon` with `sqlExpression`; the
/// functions here compute the same numbers in Swift for a query's bounding box. Both add
/// and multiply IEEE doubles in the same order and truncate a non-negative value, so a
/// coordinate inside a box always gets a key inside the box's key ranges (both mappings are
/// monotone in each coordinate). Longitude 180 has its own column (23040) beside -180's
/// column 0; a query that reaches either edge reads both.
enum MissionCell {
  /// Cells per degree, in both directions (a power of two: the multiplication is exact).
  static let perDegree = 64.0
  /// Columns per row: 360 × 64 plus one for longitude 180 exactly.
  static let columns = 23041
  /// The last row (latitude 90 exactly).
  static let lastRow = 180 * 64
  /// The last column (longitude 180 exactly).
  static let lastColumn = 360 * 64
  /// The largest key.
  static let maxKey = Int64(lastRow * columns + lastColumn)

  /// The key expression of the index, as SQL over the `lat` and `lon` columns. It must stay
  /// identical to the one in `SchemaMigration.spatialIndex` (a test pins it), or SQLite
  /// will not use the index.
  static let sqlExpression =
    "(CAST((lat + 90.0) * 64.0 AS INTEGER) * 23041 + CAST((lon + 180.0) * 64.0 AS INTEGER))"

  /// The row of latitude `latitude` (clamped to [-90, 90]).
  static func row(latitude: Double) -> Int {
    let clamped = min(90, max(-90, latitude))
    return min(lastRow, Int((clamped + 90.0) * perDegree))
  }

  /// The column of longitude `longitude` (clamped to [-180, 180]).
  static func column(longitude: Double) -> Int {
    let clamped = min(180, max(-180, longitude))
    return min(lastColumn, Int((clamped + 180.0) * perDegree))
  }

  /// The key of the cell at `row`, `column`.
  static func key(row: Int, column: Int) -> Int64 { Int64(row * columns + column) }

  /// The key ranges (inclusive, sorted, disjoint) of every cell that meets the box from
  /// latitude `south` to `north` and the longitude intervals `longitudes` (each within
  /// [-180, 180], low ≤ high).
  ///
  /// When the box would need more than `maxRanges` ranges, the answer is the one range of
  /// its rows (the latitude band), which holds every cell of the box.
  /// - Complexity: O(rows × intervals).
  static func keyRanges(
    south: Double, north: Double, longitudes: [ClosedRange<Double>], maxRanges: Int = 2048
  ) -> [ClosedRange<Int64>] {
    let rowLow = row(latitude: south)
    let rowHigh = row(latitude: north)
    var spans: [ClosedRange<Int>] = longitudes.map {
      column(longitude: $0.lowerBound)...column(longitude: $0.upperBound)
    }
    // ±180 are one meridian: a span at either edge also reads the other edge's column.
    if spans.contains(where: { $0.lowerBound == 0 }) { spans.append(lastColumn...lastColumn) }
    if spans.contains(where: { $0.upperBound == lastColumn }) { spans.append(0...0) }
    spans = merged(spans.sorted { $0.lowerBound < $1.lowerBound })
    let band = key(row: rowLow, column: 0)...key(row: rowHigh, column: lastColumn)
    if spans.count == 1, spans[0] == 0...lastColumn { return [band] }
    guard (rowHigh - rowLow + 1) * spans.count <= maxRanges else { return [band] }
    var ranges: [ClosedRange<Int64>] = []
    ranges.reserveCapacity((rowHigh - rowLow + 1) * spans.count)
    for row in rowLow...rowHigh {
      for span in spans {
        ranges.append(
          key(row: row, column: span.lowerBound)...key(row: row, column: span.upperBound))
      }
    }
    return ranges
  }

  /// `spans` (sorted by lower bound) with overlapping or adjacent spans joined.
  private static func merged(_ spans: [ClosedRange<Int>]) -> [ClosedRange<Int>] {
    var result: [ClosedRange<Int>] = []
    for span in spans {
      if let last = result.last, span.lowerBound <= last.upperBound + 1 {
        result[result.count - 1] = last.lowerBound...max(last.upperBound, span.upperBound)
      } else {
        result.append(span)
      }
    }
    return result
  }
}
