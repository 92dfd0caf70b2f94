/// Missions written to a store since a change token, by any process.
public struct MissionChanges: Sendable, Hashable {
  /// The token to pass next time: every change up to here is included.
  public var token: Int64
  /// Missions added or changed (state, place, fence, details), in their stored form.
  public var missions: [Mission]
  /// Ids of missions removed.
  public var removedIDs: [String]

  /// Creates a change set.
  public init(token: Int64, missions: [Mission], removedIDs: [String] = []) {
    self.token = token
    self.missions = missions
    self.removedIDs = removedIDs
  }
}
