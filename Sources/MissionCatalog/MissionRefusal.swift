import MissionTracking
import TextRules

/// A mission write or a tracking claim that a store refuses because of what it holds, with
/// the one line that says why: the text of these refusals in one place for SQLite
/// (`StoreError`'s cases of the same names) and PostgreSQL.
package enum MissionRefusal: Error, Sendable, Equatable, CustomStringConvertible {
  /// A replace of mission `id`, which is tracked (active or arrived).
  case missionTracked(String)
  /// A removal of mission `id`, which is tracked (in `state`).
  case trackedMissionRemoval(id: String, state: MissionState)
  /// Mission `requested` would be a second tracked mission of `worker`, which tracks
  /// `holder`; `file` and `line` name the imported record that would make it so.
  case secondTrackedMission(
    worker: String, holder: String, requested: String, state: MissionState,
    file: String? = nil, line: Int? = nil)
  /// Another process, `holder`, tracks `worker` on `database`.
  case trackingLeaseHeld(database: String, worker: String, holder: String)

  /// One line naming the mission or the worker.
  package var description: String {
    switch self {
    case .missionTracked(let id):
      "mission '\(oneLine(id))' is being tracked: submit or cancel it before replacing it"
    case .trackedMissionRemoval(let id, let state):
      "mission '\(oneLine(id))' is \(state.rawValue): submit or cancel it before you remove it"
    case .secondTrackedMission(let worker, let holder, _, let state, let file?, let line?):
      "\(oneLine(file)):\(line): field 'state' = '\(state.rawValue)': worker "
        + "'\(oneLine(worker))' already tracks mission '\(oneLine(holder))' (one active or "
        + "arrived mission per worker; nothing imported)"
    case .secondTrackedMission(let worker, let holder, let requested, let state, _, _):
      "cannot make mission \(oneLine(requested)) \(state.rawValue): worker "
        + "\(oneLine(worker)) already tracks mission \(oneLine(holder)) (one active or "
        + "arrived mission per worker)"
    case .trackingLeaseHeld(let database, let worker, let holder):
      "worker \(oneLine(worker)) on database \(database) is already being tracked by "
        + "\(oneLine(holder)); only one process may track a worker at a time"
    }
  }
}
