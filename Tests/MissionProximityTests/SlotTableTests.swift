import Testing

@testable import MissionProximity

/// The id → slot hash table against a `Dictionary`, through heavy churn so that deletions
/// shift probe runs back and the table grows.
@Suite struct SlotTableTests {
  @Test func lookupsMatchADictionaryThroughInsertsAndRemovals() {
    var rng = SplitMix64(seed: 3)
    var table = SlotTable(capacity: 4)
    var model: [String: Int32] = [:]
    var ids: [String] = []
    var free: [Int32] = []
    for step in 0..<60_000 {
      let id = "id-\(Int.random(in: 0..<3000, using: &rng))"
      if Bool.random(using: &rng) {
        guard model[id] == nil else { continue }
        let slot: Int32
        if let reused = free.popLast() {
          slot = reused
          ids[Int(slot)] = id
        } else {
          slot = Int32(ids.count)
          ids.append(id)
        }
        #expect(table.update(slot, for: id, ids: ids) == nil)
        model[id] = slot
      } else {
        let removed = table.remove(id, ids: ids)
        #expect(removed == model[id])
        if let removed {
          model[id] = nil
          ids[Int(removed)] = ""
          free.append(removed)
        }
      }
      if step % 5000 == 0 {
        #expect(table.count == model.count)
        for probe in 0..<3000 {
          let key = "id-\(probe)"
          #expect(table.slot(of: key, ids: ids) == model[key])
        }
      }
    }
  }

  @Test func idsAreComparedByTheirBytes() {
    var table = SlotTable(capacity: 2)
    let composed = "caf\u{E9}"
    let decomposed = "cafe\u{301}"
    let ids = [composed, decomposed]
    #expect(table.update(0, for: composed, ids: ids) == nil)
    #expect(table.update(1, for: decomposed, ids: ids) == nil)
    #expect(table.slot(of: composed, ids: ids) == 0)
    #expect(table.slot(of: decomposed, ids: ids) == 1)
  }
}
