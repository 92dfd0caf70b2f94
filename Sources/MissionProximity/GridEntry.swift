/// One slot of the grid: a mission's position and its links in its cell's list.
///
/// 24 bytes. `next` and `prev` are slot numbers (-1 for none); a free slot uses `next` to chain
/// the free list. After a layout the slots of a cell are consecutive, so walking a cell's list
/// reads memory in order.
struct GridEntry: Sendable {
  /// Latitude in degrees, exactly as inserted.
  var latitude: Double
  /// Longitude in degrees, exactly as inserted (180 and -180 both kept as given).
  var longitude: Double
  /// The next slot in the same cell, or -1.
  var next: Int32
  /// The previous slot in the same cell, or -1 when this slot is the cell's head.
  var prev: Int32
}
