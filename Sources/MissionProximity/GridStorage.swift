/// The non-generic heart of `SpatialGrid`: cells, slots, ids and the id → slot table.
///
/// Layout: `heads[cell]` is the first slot of the cell's doubly linked list; `entries[slot]`
/// holds the position and the links (24 bytes); `ids[slot]` is the mission id (empty for a
/// free slot) and `table` finds a slot from an id. Free slots are chained through
/// `entries[slot].next` from `freeHead`. A layout (bulk build or re-fit) sorts the slots by
/// cell, so each list is a run of consecutive slots, as in a compressed-sparse-row layout.
///
/// All storage is in arrays, so the struct has value semantics with copy-on-write.
@usableFromInline
struct GridStorage: Sendable {
  private(set) var geometry: GridGeometry
  var heads: [Int32]
  var entries: [GridEntry]
  var ids: [String]
  var table: SlotTable
  var freeHead: Int32 = -1
  /// Live missions.
  @usableFromInline private(set) var count: Int
  /// Inserts and moves since the last layout, and the count at that layout: when the first
  /// reaches the second (at least `minimumRefitOperations`), the grid is re-fitted.
  var operationsSinceLayout = 0
  private var countAtLayout: Int
  /// Average missions per cell the layout aims for.
  @usableFromInline let targetPerCell: Double

  /// Operations before an index fitted to a tiny data set is re-fitted.
  static let minimumRefitOperations = 1024

  /// Lays out missions at `coordinates` with their `ids`.
  ///
  /// When an id occurs twice the later one wins.
  /// - Returns: The storage and the permutation: `permutation[slot]` is the index in
  ///   `coordinates` now stored in `slot`.
  /// - Complexity: O(n + cells) expected.
  @usableFromInline
  static func laidOut(_ coordinates: [Coordinate], ids sourceIDs: [String], targetPerCell: Double)
    -> (storage: GridStorage, permutation: [Int32])
  {
    let n = coordinates.count
    let geometry = GridGeometry.fitting(coordinates, targetPerCell: targetPerCell)
    let cellCount = geometry.cellCount
    var cellOf = [Int32](repeating: 0, count: n)
    var start = [Int32](repeating: 0, count: cellCount + 1)
    for index in 0..<n {
      let cell = geometry.cell(
        latitude: coordinates[index].latitude, longitude: coordinates[index].longitude)
      cellOf[index] = Int32(truncatingIfNeeded: cell)
      start[cell + 1] &+= 1
    }
    for cell in 0..<cellCount { start[cell + 1] &+= start[cell] }
    var heads = [Int32](repeating: -1, count: cellCount)
    var permutation = [Int32](repeating: 0, count: n)
    do {
      var cursor = start
      for index in 0..<n {
        let cell = Int(cellOf[index])
        permutation[Int(cursor[cell])] = Int32(truncatingIfNeeded: index)
        cursor[cell] &+= 1
      }
    }
    cellOf = []
    var entries = [GridEntry]()
    entries.reserveCapacity(n)
    var ids = [String]()
    ids.reserveCapacity(n)
    for cell in 0..<cellCount {
      let low = Int(start[cell])
      let high = Int(start[cell + 1])
      guard low < high else { continue }
      heads[cell] = Int32(truncatingIfNeeded: low)
      for slot in low..<high {
        let from = Int(permutation[slot])
        entries.append(
          GridEntry(
            latitude: coordinates[from].latitude, longitude: coordinates[from].longitude,
            next: slot + 1 < high ? Int32(truncatingIfNeeded: slot + 1) : -1,
            prev: slot > low ? Int32(truncatingIfNeeded: slot - 1) : -1))
        ids.append(sourceIDs[from])
      }
    }
    var storage = GridStorage(
      geometry: geometry, heads: heads, entries: entries, ids: ids,
      table: SlotTable(capacity: n), count: n, countAtLayout: n, targetPerCell: targetPerCell)
    // Hash first, then insert: the inserts' cache misses no longer wait on hashing and
    // overlap one another.
    let hashes = ids.map(SlotTable.hash)
    for slot in 0..<n {
      let slot32 = Int32(truncatingIfNeeded: slot)
      guard
        let other = storage.table.update(slot32, for: ids[slot], hash: hashes[slot], ids: ids)
      else { continue }
      // Duplicate id: keep whichever came later in the input.
      let loser = permutation[Int(other)] > permutation[slot] ? slot32 : other
      if loser == slot32 { _ = storage.table.update(other, for: ids[slot], ids: ids) }
      storage.unlink(loser)
      storage.release(loser)
      storage.count -= 1
    }
    storage.countAtLayout = storage.count
    return (storage, permutation)
  }

  private init(
    geometry: GridGeometry, heads: [Int32], entries: [GridEntry], ids: [String],
    table: SlotTable, count: Int, countAtLayout: Int, targetPerCell: Double
  ) {
    self.geometry = geometry
    self.heads = heads
    self.entries = entries
    self.ids = ids
    self.table = table
    self.count = count
    self.countAtLayout = countAtLayout
    self.targetPerCell = targetPerCell
  }

  /// The slot of `id`, or nil.
  @usableFromInline
  func slot(of id: String) -> Int32? { table.slot(of: id, ids: ids) }

  /// The position in `slot`.
  @usableFromInline
  func coordinate(at slot: Int32) -> Coordinate {
    let entry = entries[Int(slot)]
    return Coordinate(uncheckedLatitude: entry.latitude, longitude: entry.longitude)
  }

  /// Whether enough inserts and moves happened since the last layout that the grid should be
  /// re-fitted to the data (amortised O(1) per operation, like array growth).
  @usableFromInline var needsRefit: Bool {
    operationsSinceLayout >= max(countAtLayout, GridStorage.minimumRefitOperations)
  }

  /// The live slots and a compacted copy of their entries and ids, for a re-fit.
  @usableFromInline
  func liveContents() -> (slots: [Int32], coordinates: [Coordinate], ids: [String]) {
    var slots = [Int32]()
    slots.reserveCapacity(count)
    for head in heads {
      var slot = head
      while slot >= 0 {
        slots.append(slot)
        slot = entries[Int(slot)].next
      }
    }
    return (slots, slots.map { coordinate(at: $0) }, slots.map { ids[Int($0)] })
  }

  // MARK: - Slot operations

  /// Takes a free slot (or appends one) for a new mission at (`lat`, `lon`) and links it.
  /// - Returns: The slot.
  @usableFromInline
  mutating func insertNew(id: String, latitude: Double, longitude: Double) -> Int32 {
    let slot: Int32
    let entry = GridEntry(latitude: latitude, longitude: longitude, next: -1, prev: -1)
    if freeHead >= 0 {
      slot = freeHead
      freeHead = entries[Int(slot)].next
      entries[Int(slot)] = entry
      ids[Int(slot)] = id
    } else {
      slot = Int32(truncatingIfNeeded: entries.count)
      entries.append(entry)
      ids.append(id)
    }
    link(slot)
    _ = table.update(slot, for: id, ids: ids)
    count += 1
    operationsSinceLayout += 1
    return slot
  }

  /// Moves `slot` to (`lat`, `lon`), relinking it only when its cell changes.
  @usableFromInline
  mutating func move(_ slot: Int32, latitude: Double, longitude: Double) {
    let old = entries[Int(slot)]
    let oldCell = geometry.cell(latitude: old.latitude, longitude: old.longitude)
    let newCell = geometry.cell(latitude: latitude, longitude: longitude)
    if oldCell == newCell {
      entries[Int(slot)].latitude = latitude
      entries[Int(slot)].longitude = longitude
    } else {
      unlink(slot)
      entries[Int(slot)].latitude = latitude
      entries[Int(slot)].longitude = longitude
      link(slot)
    }
    operationsSinceLayout += 1
  }

  /// Unlinks and frees the slot of `id`.
  /// - Returns: The freed slot, or nil when `id` is unknown.
  @usableFromInline
  mutating func remove(id: String) -> Int32? {
    guard let slot = table.remove(id, ids: ids) else { return nil }
    unlink(slot)
    release(slot)
    count -= 1
    return slot
  }

  /// Puts `slot` at the head of its cell's list.
  private mutating func link(_ slot: Int32) {
    let entry = entries[Int(slot)]
    let cell = geometry.cell(latitude: entry.latitude, longitude: entry.longitude)
    let head = heads[cell]
    entries[Int(slot)].next = head
    entries[Int(slot)].prev = -1
    if head >= 0 { entries[Int(head)].prev = slot }
    heads[cell] = slot
  }

  /// Takes `slot` out of its cell's list.
  private mutating func unlink(_ slot: Int32) {
    let entry = entries[Int(slot)]
    if entry.prev >= 0 {
      entries[Int(entry.prev)].next = entry.next
    } else {
      heads[geometry.cell(latitude: entry.latitude, longitude: entry.longitude)] = entry.next
    }
    if entry.next >= 0 { entries[Int(entry.next)].prev = entry.prev }
  }

  /// Puts an unlinked `slot` on the free list.
  private mutating func release(_ slot: Int32) {
    ids[Int(slot)] = ""
    entries[Int(slot)].next = freeHead
    entries[Int(slot)].prev = -1
    freeHead = slot
  }

  /// Bytes held by the cell table and the slot entries (capacity, not just count).
  @usableFromInline var structureBytes: Int {
    heads.capacity * MemoryLayout<Int32>.stride
      + entries.capacity * MemoryLayout<GridEntry>.stride
  }

  /// The bytes held for ids: the slot → id array, the id → slot table, and (estimated) the
  /// heap storage of ids longer than 15 UTF-8 bytes.
  @usableFromInline var identifierBytes: Int {
    var bytes = ids.capacity * MemoryLayout<String>.stride + table.byteCount
    for id in ids where id.utf8.count > 15 { bytes += 32 + id.utf8.count }
    return bytes
  }
}
