import Foundation
import MissionTracking

extension MissionDatabase {
  /// Expires every open or accepted mission whose deadline is before `now`, each with its
  /// own committed transition (time `now`), and returns their ids in order.
  ///
  /// Commands that start tracking or list open missions call this first, so a mission past
  /// its deadline can be neither started nor offered.
  /// - Throws: `StoreError` when the missions cannot be read or a transition cannot commit.
  @discardableResult
  public func expireDue(at now: Date = Date()) throws -> [String] {
    let due: [String] = try withConnection { connection in
      let select = try connection.cached(
        """
        SELECT id FROM missions
        WHERE state IN ('open', 'accepted') AND deadline_us IS NOT NULL AND deadline_us < ?
        ORDER BY id
        """)
      defer { select.reset() }
      try select.bind(microseconds(now), at: 1)
      var ids: [String] = []
      while try select.step() { ids.append(select.string(at: 0) ?? "") }
      return ids
    }
    for id in due { try apply(.expire, toMission: id, at: now) }
    return due
  }
}
