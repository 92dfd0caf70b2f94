/// An in-memory spatial index of missions for exact "which missions are near this point?"
/// queries: within a radius, the k nearest, and inside a latitude/longitude box.
///
/// Each mission is an id (a `String`), a `Coordinate` and a small `Payload` that queries can
/// filter on without a second lookup — typically the mission's state:
///
/// ```swift
/// var grid = try SpatialGrid(missions.map { ($0.id, $0.coordinate, $0.state) })
/// let open = try grid.nearest(10, to: worker, within: 5_000, where: { $0 == .open })
/// grid.setPayload(.accepted, for: "m-17")
/// ```
///
/// **Exactness.** Cells only choose candidates; every candidate is confirmed with the
/// haversine distance of `Coordinate.distance(to:)`, evaluated bit-identically, so results
/// equal a brute-force scan: same ids, same order (distance, then id), same distances, the
/// radius boundary inclusive. Correct across ±180, at the poles, for radii larger than a cell
/// and up to the whole Earth.
///
/// **Cells.** An equal-angle grid fitted to the data's bounding box with about
/// `targetMissionsPerCell` missions per cell on average (default 2), cells square on the
/// ground at the data's middle latitude. Smaller cells mean fewer wasted distance
/// computations per query but more empty cells to step over and a larger cell table (4 bytes
/// per cell); larger cells the reverse. About two per cell keeps the table at ~2 bytes per
/// mission, k-nearest on sparse data visits only a few cells, and a 1 km query in a dense
/// city touches a handful of cells. The grid re-fits itself (amortised O(1)) after as many
/// inserts and moves as it held missions at the last fit.
///
/// **Concurrency.** A value type with copy-on-write storage, `Sendable` when `Payload` is.
/// Any number of tasks may query their copies at once; a writer mutates its own copy, and
/// the first write after a copy was shared duplicates the storage (O(n), measured by
/// `missiontrack-bench nearby`). A typical owner is an actor that applies updates and hands
/// out the current value as a snapshot for queries.
///
/// **Memory.** Per mission: a 24-byte slot (latitude, longitude, two 32-bit links), the
/// payload, and about 2 bytes of cell table (`indexByteCount`); the ids themselves are kept
/// in a slot-indexed array and an id → slot hash table (`identifierByteCount`).
public struct SpatialGrid<Payload: Sendable>: Sendable {
  @usableFromInline var storage: GridStorage
  @usableFromInline var payloads: [Payload]

  /// Average missions per cell the grid aims for when it fits itself to the data.
  public static var defaultMissionsPerCell: Double { 2 }

  /// An empty grid.
  ///
  /// - Parameter targetMissionsPerCell: Average missions per cell when fitting the grid.
  /// - Throws: `ProximityError.invalidCount` when the target is not a positive finite number
  ///   (passed rounded down).
  @inlinable
  public init(targetMissionsPerCell: Double = defaultMissionsPerCell) throws(ProximityError) {
    try self.init([], targetMissionsPerCell: targetMissionsPerCell)
  }

  /// A grid holding `missions`, built in one pass.
  ///
  /// When an id occurs more than once, the last occurrence wins, as with repeated `insert`.
  /// Ids are told apart by their UTF-8 bytes (no Unicode normalization).
  /// - Parameters:
  ///   - missions: (id, coordinate, payload) triples.
  ///   - targetMissionsPerCell: Average missions per cell when fitting the grid.
  /// - Throws: `ProximityError.invalidCount` when the target is not a positive finite number.
  /// - Complexity: O(n) expected (a counting sort by cell plus the id table).
  @inlinable
  public init(
    _ missions: [(id: String, coordinate: Coordinate, payload: Payload)],
    targetMissionsPerCell: Double = defaultMissionsPerCell
  ) throws(ProximityError) {
    guard targetMissionsPerCell.isFinite, targetMissionsPerCell > 0 else {
      throw .invalidCount(Int(exactly: targetMissionsPerCell.rounded(.down)) ?? 0)
    }
    var coordinates: [Coordinate] = []
    coordinates.reserveCapacity(missions.count)
    var ids: [String] = []
    ids.reserveCapacity(missions.count)
    for mission in missions {
      coordinates.append(mission.coordinate)
      ids.append(mission.id)
    }
    let (storage, permutation) = GridStorage.laidOut(
      coordinates, ids: ids, targetPerCell: targetMissionsPerCell)
    self.storage = storage
    self.payloads = permutation.map { missions[Int($0)].payload }
  }

  /// The number of missions in the grid.
  @inlinable public var count: Int { storage.count }

  /// Whether the grid holds no missions.
  @inlinable public var isEmpty: Bool { storage.count == 0 }

  /// Whether a mission with `id` is in the grid.
  @inlinable public func contains(_ id: String) -> Bool { storage.slot(of: id) != nil }

  /// The position of mission `id`, or nil when it is not in the grid.
  @inlinable
  public func coordinate(of id: String) -> Coordinate? {
    storage.slot(of: id).map { storage.coordinate(at: $0) }
  }

  /// The payload of mission `id`, or nil when it is not in the grid.
  @inlinable
  public func payload(of id: String) -> Payload? {
    storage.slot(of: id).map { payloads[Int($0)] }
  }

  /// Adds mission `id` at `coordinate`, or moves it there and replaces its payload when it is
  /// already in the grid.
  ///
  /// - Returns: The previous payload when the id was present, else nil.
  /// - Complexity: O(1) expected, amortised (an occasional re-fit is O(n)).
  @inlinable
  @discardableResult
  public mutating func insert(_ id: String, at coordinate: Coordinate, payload: Payload)
    -> Payload?
  {
    if let slot = storage.slot(of: id) {
      storage.move(slot, latitude: coordinate.latitude, longitude: coordinate.longitude)
      let old = payloads[Int(slot)]
      payloads[Int(slot)] = payload
      refitIfNeeded()
      return old
    }
    let slot = storage.insertNew(
      id: id, latitude: coordinate.latitude, longitude: coordinate.longitude)
    if Int(slot) == payloads.count {
      payloads.append(payload)
    } else {
      payloads[Int(slot)] = payload
    }
    refitIfNeeded()
    return nil
  }

  /// Moves mission `id` to `coordinate`.
  ///
  /// - Returns: Whether the mission was in the grid (nothing changes when it was not).
  /// - Complexity: O(1) expected, amortised.
  @inlinable
  @discardableResult
  public mutating func move(_ id: String, to coordinate: Coordinate) -> Bool {
    guard let slot = storage.slot(of: id) else { return false }
    storage.move(slot, latitude: coordinate.latitude, longitude: coordinate.longitude)
    refitIfNeeded()
    return true
  }

  /// Replaces the payload (for example the state) of mission `id`.
  ///
  /// - Returns: The previous payload, or nil when the mission was not in the grid.
  /// - Complexity: O(1) expected.
  @inlinable
  @discardableResult
  public mutating func setPayload(_ payload: Payload, for id: String) -> Payload? {
    guard let slot = storage.slot(of: id) else { return nil }
    let old = payloads[Int(slot)]
    payloads[Int(slot)] = payload
    return old
  }

  /// Removes mission `id`.
  ///
  /// - Returns: Its payload, or nil when it was not in the grid.
  /// - Complexity: O(1) expected.
  @inlinable
  @discardableResult
  public mutating func remove(_ id: String) -> Payload? {
    guard let slot = storage.remove(id: id) else { return nil }
    // The payload stays in the free slot until it is reused or the grid re-fits.
    return payloads[Int(slot)]
  }

  /// Bytes held by the index structure: the cell table, the 24-byte slots and the payloads
  /// (allocated capacity). Excludes the ids; see `identifierByteCount`.
  @inlinable
  public var indexByteCount: Int {
    storage.structureBytes + payloads.capacity * MemoryLayout<Payload>.stride
  }

  /// The bytes held for the ids: the slot → id array (16 bytes a slot), the id → slot hash
  /// table (8-byte buckets, at most half full) and, estimated, the heap text of ids longer
  /// than 15 UTF-8 bytes.
  @inlinable
  public var identifierByteCount: Int { storage.identifierBytes }

  /// Re-fits the grid to the data after enough inserts and moves (amortised O(1)).
  @inlinable
  mutating func refitIfNeeded() {
    guard storage.needsRefit else { return }
    let live = storage.liveContents()
    let (fitted, permutation) = GridStorage.laidOut(
      live.coordinates, ids: live.ids, targetPerCell: storage.targetPerCell)
    let old = payloads
    payloads = permutation.map { old[Int(live.slots[Int($0)])] }
    storage = fitted
  }

  /// The storage's predicate for a payload predicate.
  @inlinable
  func slotFilter(_ predicate: ((Payload) -> Bool)?) -> ((Int32) -> Bool)? {
    guard let predicate else { return nil }
    let payloads = self.payloads
    return { predicate(payloads[Int($0)]) }
  }
}
