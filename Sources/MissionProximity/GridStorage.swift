/// The non-generic heart of `SpatialGrid`: cells, slots, ids and the id → slot map.
///
/// Layout: `heads[cell]` is the first slot of the cell's doubly linked list; `entries[slot]`
/// holds the position and the links (24 bytes); `ids[slot]` is the mission id (empty for a
/// free slot) and `slotByID` finds a slot from an id. Free slots are chained through
/// `entries[slot].next` from `freeHead`. A layout (bulk build or re-fit) sorts the slots by
/// cell, so each list is a run of consecutive slots, as in a compressed-sparse-row layout.
///
/// All storage is in arrays, so the struct has value semantics with copy-on-write.
struct GridStorage: Sendable {
  private(set) var geometry: GridGeometry
  var heads: [Int32]
  var entries: [GridEntry]
  var ids: [String]
  var slotByID: [String: Int32]
  var freeHead: Int32 = -1
  /// Live missions.
  private(set) var count: Int
  /// Inserts and moves since the last layout, and the count at that layout: when the first
  /// reaches the second (at least `minimumRefitOperations`), the grid is re-fitted.
  var operationsSinceLayout = 0
  private var countAtLayout: Int
  /// Average missions per cell the layout aims for.
  let targetPerCell: Double

  /// Operations before an index fitted to a tiny data set is re-fitted.
  static let minimumRefitOperations = 1024

  /// Lays out `entries` (links ignored) with their `ids`.
  ///
  /// When an id occurs twice the later one in `entries` wins.
  /// - Returns: The storage and the permutation: `permutation[slot]` is the index in
  ///   `entries` now stored in `slot`.
  /// - Complexity: O(n + cells) plus the dictionary build.
  static func laidOut(_ source: [GridEntry], ids sourceIDs: [String], targetPerCell: Double)
    -> (storage: GridStorage, permutation: [Int32])
  {
    let n = source.count
    let geometry = GridGeometry.fitting(source, targetPerCell: targetPerCell)
    let cellCount = geometry.cellCount
    var cellOf = [Int32](repeating: 0, count: n)
    var start = [Int32](repeating: 0, count: cellCount + 1)
    for index in 0..<n {
      let cell = geometry.cell(
        latitude: source[index].latitude, longitude: source[index].longitude)
      cellOf[index] = Int32(truncatingIfNeeded: cell)
      start[cell + 1] &+= 1
    }
    for cell in 0..<cellCount { start[cell + 1] &+= start[cell] }
    var heads = [Int32](repeating: -1, count: cellCount)
    var cursor = start
    var permutation = [Int32](repeating: 0, count: n)
    for index in 0..<n {
      let cell = Int(cellOf[index])
      permutation[Int(cursor[cell])] = Int32(truncatingIfNeeded: index)
      cursor[cell] &+= 1
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
            latitude: source[from].latitude, longitude: source[from].longitude,
            next: slot + 1 < high ? Int32(truncatingIfNeeded: slot + 1) : -1,
            prev: slot > low ? Int32(truncatingIfNeeded: slot - 1) : -1))
        ids.append(sourceIDs[from])
      }
    }
    var storage = GridStorage(
      geometry: geometry, heads: heads, entries: entries, ids: ids,
      slotByID: Dictionary(minimumCapacity: n), count: n, countAtLayout: n,
      targetPerCell: targetPerCell)
    for slot in 0..<n {
      let slot32 = Int32(truncatingIfNeeded: slot)
      guard let other = storage.slotByID.updateValue(slot32, forKey: storage.ids[slot]) else {
        continue
      }
      // Duplicate id: keep whichever came later in `source`.
      let loser = permutation[Int(other)] > permutation[slot] ? slot32 : other
      if loser == slot32 { storage.slotByID[storage.ids[slot]] = other }
      storage.unlink(loser)
      storage.release(loser)
      storage.count -= 1
    }
    storage.countAtLayout = storage.count
    return (storage, permutation)
  }

  private init(
    geometry: GridGeometry, heads: [Int32], entries: [GridEntry], ids: [String],
    slotByID: [String: Int32], count: Int, countAtLayout: Int, targetPerCell: Double
  ) {
    self.geometry = geometry
    self.heads = heads
    self.entries = entries
    self.ids = ids
    self.slotByID = slotByID
    self.count = count
    self.countAtLayout = countAtLayout
    self.targetPerCell = targetPerCell
  }

  /// Whether enough inserts and moves happened since the last layout that the grid should be
  /// re-fitted to the data (amortised O(1) per operation, like array growth).
  var needsRefit: Bool {
    operationsSinceLayout >= max(countAtLayout, GridStorage.minimumRefitOperations)
  }

  /// The live slots and a compacted copy of their entries and ids, for a re-fit.
  func liveContents() -> (slots: [Int32], entries: [GridEntry], ids: [String]) {
    var slots = [Int32]()
    slots.reserveCapacity(count)
    for head in heads {
      var slot = head
      while slot >= 0 {
        slots.append(slot)
        slot = entries[Int(slot)].next
      }
    }
    return (slots, slots.map { entries[Int($0)] }, slots.map { ids[Int($0)] })
  }

  // MARK: - Slot operations

  /// Takes a free slot (or appends one) for a new mission at (`lat`, `lon`) and links it.
  /// - Returns: The slot.
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
    slotByID[id] = slot
    count += 1
    operationsSinceLayout += 1
    return slot
  }

  /// Moves `slot` to (`lat`, `lon`), relinking it only when its cell changes.
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
  mutating func remove(id: String) -> Int32? {
    guard let slot = slotByID.removeValue(forKey: id) else { return nil }
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
  var structureBytes: Int {
    heads.capacity * MemoryLayout<Int32>.stride
      + entries.capacity * MemoryLayout<GridEntry>.stride
  }

  /// An estimate of the bytes held for ids: the slot → id array, the id → slot dictionary's
  /// buckets, and the heap storage of ids longer than 15 UTF-8 bytes.
  var identifierBytes: Int {
    var bytes = ids.capacity * MemoryLayout<String>.stride
    bytes += slotByID.capacity * (MemoryLayout<String>.stride + MemoryLayout<Int32>.stride) * 4 / 3
    for id in ids where id.utf8.count > 15 { bytes += 32 + id.utf8.count }
    return bytes
  }
}
