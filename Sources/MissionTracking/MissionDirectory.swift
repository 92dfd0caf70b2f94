import Foundation
import MissionProximity

/// The engine's missions as other threads may read them at once: every mission by id and
/// by place (a `SpatialGrid` with the mission and its JSON as payload), and the number in
/// each state.
///
/// Only `MissionEngine` writes it (in `setMission`, the one place its view of a mission
/// changes); readers — the HTTP service's nearby queries, on the server's own threads — share
/// a read lock for the length of one query instead of a hop onto the engine's actor.
package final class MissionDirectory: @unchecked Sendable {
  /// A mission as the directory keeps it: the mission and where its JSON is in `json`.
  struct Entry: Sendable {
    let mission: Mission
    let jsonStart: Int
    let jsonCount: Int

    /// An entry whose JSON is not kept (no JSON is empty).
    static func unencoded(_ mission: Mission) -> Entry {
      Entry(mission: mission, jsonStart: 0, jsonCount: 0)
    }
  }

  private let lock = ReadWriteLock()
  /// Every mission by place, with its JSON's place as the payload: a nearby query reads
  /// its missions from the grid's slots (no lookup by id per result, which was most of a
  /// 1 km query's time on a million missions), and `mission(_:)` uses the grid's id table.
  private var grid: SpatialGrid<Entry>?
  /// Each mission's JSON object (its `openJSONBytes` and the closing brace), one after
  /// another, encoded when the mission is stored: writing each mission's JSON per request
  /// was a quarter of a loaded server's own time for 1 km queries. One buffer in order of
  /// place (`load`), not an array per mission: a query's JSON is then read from a few runs
  /// of memory, without a cache miss and an atomic retain per result, which cost more than
  /// encoding had.
  private var json: [UInt8] = []
  /// Bytes of `json` no entry points to any more (of missions changed or removed).
  private var unusedJSON = 0
  /// Whether `json` is kept: from the first `keepJSON()` on (the HTTP service's), so that
  /// tracking from the command line pays neither the encoding nor the memory.
  private var keepsJSON = false
  private var counts: [MissionState: Int] = [:]

  /// An empty directory (filled by the engine's `open()`).
  package init() {}

  /// Replaces the contents with `missions`.
  /// - Throws: `ProximityError` for an unusable grid.
  func load(_ missions: [Mission]) throws {
    let encoding = lock.reading { keepsJSON }
    let (built, encoded) = try Self.laidOut(missions, encoding: encoding)
    var states: [MissionState: Int] = [:]
    for mission in missions { states[mission.state, default: 0] += 1 }
    lock.writing {
      grid = built
      json = encoded
      unusedJSON = 0
      counts = states
      // Asked for meanwhile: encoded now.
      if keepsJSON && !encoding { rewriteJSON() }
    }
  }

  /// Keeps each mission's JSON from now on (what `forEachMissionJSON` reads), encoding it
  /// now when it is not kept yet.
  package func keepJSON() {
    if lock.reading({ keepsJSON }) { return }
    lock.writing {
      if keepsJSON { return }
      keepsJSON = true
      rewriteJSON()
    }
  }

  /// A grid of `missions`, with their JSON when `encoding`, in order of place: rows of
  /// 0.01° of latitude (about 1 km), west to east in each.
  private static func laidOut(_ missions: [Mission], encoding: Bool) throws(ProximityError)
    -> (SpatialGrid<Entry>, [UInt8])
  {
    guard encoding else {
      return (
        try SpatialGrid(
          missions.map { ($0.id, $0.coordinate, Entry.unencoded($0)) }),
        []
      )
    }
    func row(_ mission: Mission) -> Double { (mission.coordinate.latitude * 100).rounded(.down) }
    let byPlace = missions.sorted {
      row($0) != row($1) ? row($0) < row($1) : $0.coordinate.longitude < $1.coordinate.longitude
    }
    var encoded: [UInt8] = []
    var entries: [(id: String, coordinate: Coordinate, payload: Entry)] = []
    entries.reserveCapacity(byPlace.count)
    for mission in byPlace {
      entries.append((mission.id, mission.coordinate, append(mission, to: &encoded)))
    }
    return (try SpatialGrid(entries), encoded)
  }

  /// Appends `mission`'s JSON to `encoded`; its entry.
  private static func append(_ mission: Mission, to encoded: inout [UInt8]) -> Entry {
    let start = encoded.count
    encoded.append(contentsOf: mission.openJSONBytes)
    encoded.append(UInt8(ascii: "}"))
    return Entry(mission: mission, jsonStart: start, jsonCount: encoded.count - start)
  }

  /// Lays the grid out again with every mission's JSON, none unused; call with the write
  /// lock held.
  private func rewriteJSON() {
    guard let all = allMissions(), let (built, encoded) = try? Self.laidOut(all, encoding: true)
    else { return }
    grid = built
    json = encoded
    unusedJSON = 0
  }

  /// Stores `mission` under `id` (nil: removes it), moving it in the grid when its place
  /// changed.
  func set(_ mission: Mission?, id: String) {
    set([(id, mission)], all: { [] })
  }

  /// Changes at least this many missions at once are laid out anew (see `set(_:all:)`).
  static let rebuildMinimum = 10_000

  /// Applies `changes` (each a mission by id, nil to remove it) as one change, so a reader
  /// sees none of them or all: an import of half a million missions applied one lock at a
  /// time was seen half done by nearby queries for seconds.
  ///
  /// Many changes (at least `rebuildMinimum` and a quarter of the missions afterwards, `all`)
  /// are laid out anew beside the old grid and swapped in (`load`), so that readers wait for
  /// the swap only: under one lock, half a million inserts held nearby queries for 2.5 s.
  /// Fewer are applied under one write lock.
  func set(_ changes: [(id: String, mission: Mission?)], all: () -> [Mission]) {
    if changes.count >= Self.rebuildMinimum {
      let missions = all()
      if changes.count * 4 >= missions.count, (try? load(missions)) != nil { return }
    }
    lock.writing {
      for (id, mission) in changes { setLocked(mission, id: id) }
    }
  }

  /// `set(_:id:)` with the write lock held.
  private func setLocked(_ mission: Mission?, id: String) {
    if grid == nil { grid = try? SpatialGrid() }
    let old = grid?.payload(of: id)
    if let old {
      counts[old.mission.state, default: 1] -= 1
      unusedJSON += old.jsonCount
    }
    if let mission {
      counts[mission.state, default: 0] += 1
      let entry =
        keepsJSON
        ? Self.append(mission, to: &json) : .unencoded(mission)
      if old?.mission.coordinate != mission.coordinate {
        grid?.insert(id, at: mission.coordinate, payload: entry)
      } else {
        _ = grid?.setPayload(entry, for: id)
      }
    } else {
      _ = grid?.remove(id)
    }
    // Amortised O(1): a rewrite of n missions' JSON after n/2 changes or so.
    if unusedJSON > max(json.count / 2, 1 << 20) { rewriteJSON() }
  }

  /// Every mission, under the lock.
  private func allMissions() -> [Mission]? {
    guard let grid else { return nil }
    var all: [Mission] = []
    all.reserveCapacity(grid.count)
    // A radius of half the Earth's circumference holds every mission.
    try? grid.forEachMission(
      within: Earth.halfCircumferenceMeters, of: Coordinate(latitude: 0, longitude: 0)
    ) {
      all.append($1.pointee.mission)
    }
    return all.count == grid.count ? all : nil
  }

  /// Bytes of JSON kept, those of changed and removed missions included.
  var jsonByteCount: Int { lock.reading { json.count } }

  /// The mission with `id`.
  package func mission(_ id: String) -> Mission? {
    lock.reading { grid?.payload(of: id)?.mission }
  }

  /// How many missions are in each state (states with none are left out).
  package var countsByState: [MissionState: Int] {
    lock.reading { counts.filter { $0.value > 0 } }
  }

  /// Missions within `radiusMeters` of `coordinate` (every distance when nil, with a
  /// `limit`), nearest first (ties by id), only those whose state passes `filter` (applied
  /// before `limit`), each with its mission.
  /// - Throws: `ProximityError` for a bad radius or limit.
  package func missions(
    within radiusMeters: Double?, of coordinate: Coordinate, limit: Int? = nil,
    where filter: ((MissionState) -> Bool)? = nil
  ) throws -> [(match: ProximityMatch, mission: Mission)] {
    var found: [(match: ProximityMatch, mission: Mission)] = []
    try lock.reading { () throws(ProximityError) in
      try visit(within: radiusMeters, of: coordinate, limit: limit, where: filter) {
        found.append(($0, $1.pointee.mission))
      }
    }
    return found
  }

  /// Calls `body` with each result of `missions(within:of:limit:where:)` in order and its
  /// mission's `openJSONBytes`, valid during the call, all under one read lock: `body` must
  /// not write to the directory. The first call encodes every mission (`keepJSON()`).
  /// - Throws: `ProximityError` for a bad radius or limit.
  package func forEachMissionJSON(
    within radiusMeters: Double?, of coordinate: Coordinate, limit: Int? = nil,
    where filter: ((MissionState) -> Bool)? = nil,
    _ body: (ProximityMatch, UnsafeBufferPointer<UInt8>) -> Void
  ) throws {
    let answered = try lock.reading { () throws(ProximityError) -> Bool in
      guard keepsJSON else { return false }
      // Where each result's JSON is (field by field through the pointer: a copy of the
      // entry would retain the mission's strings).
      var spans: [(match: ProximityMatch, start: Int, count: Int)] = []
      spans.reserveCapacity(64)
      try visit(within: radiusMeters, of: coordinate, limit: limit, where: filter) {
        match, entry in
        spans.append((match, entry.pointee.jsonStart, entry.pointee.jsonCount))
      }
      json.withUnsafeBufferPointer { json in
        // Whether each span holds an object, for all of them before any is copied: that
        // reads both ends of every result's JSON at once, so that their cache misses
        // overlap, where the copies alone took them one after another (the body of a 1 km
        // query on a million missions went from 13 µs to 9.5 µs, medians in process). A
        // span of no bytes is a mission not encoded (a rewrite that could not run).
        for index in spans.indices {
          let (start, count) = (spans[index].start, spans[index].count)
          if count < 2 || json[start] != UInt8(ascii: "{")
            || json[start + count - 1] != UInt8(ascii: "}")
          {
            spans[index].count = 0
          }
        }
        for (match, start, count) in spans {
          if count > 0 {
            // Without the closing brace: the mission's open JSON.
            body(match, UnsafeBufferPointer(rebasing: json[start..<start + count - 1]))
          } else {
            grid?.payload(of: match.id)?.mission.openJSONBytes.withUnsafeBufferPointer {
              body(match, $0)
            }
          }
        }
      }
      return true
    }
    if !answered {
      keepJSON()
      try forEachMissionJSON(
        within: radiusMeters, of: coordinate, limit: limit, where: filter, body)
    }
  }

  /// The grid's query for the directory's arguments; call with the lock held.
  private func visit(
    within radiusMeters: Double?, of coordinate: Coordinate, limit: Int?,
    where filter: ((MissionState) -> Bool)?,
    _ body: (ProximityMatch, UnsafePointer<Entry>) -> Void
  ) throws(ProximityError) {
    guard let grid else { return }
    // Through the pointer: the state alone is read, the mission is not copied.
    let predicate: ((UnsafePointer<Entry>) -> Bool)? = filter.map { filter in
      { filter($0.pointee.mission.state) }
    }
    if let limit {
      try grid.forEachNearest(limit, to: coordinate, within: radiusMeters, where: predicate, body)
    } else {
      try grid.forEachMission(within: radiusMeters ?? 0, of: coordinate, where: predicate, body)
    }
  }
}
