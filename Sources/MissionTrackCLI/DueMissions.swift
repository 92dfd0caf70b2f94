import CommandLineSupport
import Foundation
import MissionCatalog
import MissionTracking

/// The missions past their deadline that the expiry has not recorded yet, as a command that
/// only reads shows them: expired, which is what the next command that writes records. So
/// a read never offers a mission that can no longer be accepted, and never writes.
struct DueMissions {
  /// The missions the expiry would expire now (`MissionCatalogStore.dueMissionIDs(at:)`).
  let ids: Set<String>
  /// The time they were due at.
  let now: Date

  /// The due missions of `database` at `now`.
  /// - Throws: `CLIError.failure` when the database cannot be read.
  init(_ database: any MissionCatalogStore, at now: Date = Date()) async throws(CLIError) {
    self.now = now
    ids = try await CLIError.asyncRuntime { try await database.dueMissionIDs(at: now) }
  }

  /// `mission` as shown: expired when it is due (the lifecycle's own expiry, not recorded).
  func shown(_ mission: Mission) -> Mission {
    guard !ids.isEmpty, ids.contains(mission.id) else { return mission }
    var lifecycle = MissionLifecycle(mission: mission)
    lifecycle.expireIfDue(at: now)
    return lifecycle.mission
  }

  /// The missions in `state` as shown (all when nil), ordered by id.
  func missions(of database: any MissionCatalogStore, inState state: MissionState?)
    async throws(CLIError) -> [Mission]
  {
    try await CLIError.asyncRuntime {
      // With none due the stored states are the shown ones, and the store filters.
      if ids.isEmpty { return try await database.missions(inState: state) }
      let all = try await database.missions(inState: nil).map(shown)
      guard let state else { return all }
      return all.filter { $0.state == state }
    }
  }
}
