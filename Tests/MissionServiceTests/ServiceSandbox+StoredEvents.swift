import MissionStore

extension ServiceSandbox {
  /// The events committed in the sandbox's database after `seq`, as (seq, mission), read
  /// by a connection of its own (beside a running `serve`).
  func storedEvents(after seq: Int64 = 0) throws -> [(seq: Int64, mission: String)] {
    let reader = try MissionDatabase(
      path: databasePath, configuration: StoreConfiguration(readOnly: true))
    return try reader.committedEvents(afterSequence: seq, limit: 1_000_000).map {
      ($0.sequence, $0.missionID)
    }
  }
}
