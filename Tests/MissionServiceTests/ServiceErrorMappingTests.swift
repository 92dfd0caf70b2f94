import MissionCatalog
import MissionTracking
import Testing

@testable import MissionService

/// How the service answers the refusals both stores share (`MissionRefusal`,
/// `WorkerRefusal`) and a store that cannot take a request now (`StoreAvailability`).
struct ServiceErrorMappingTests {
  /// A store error that knows whether the database could take the request.
  struct StoreAway: StoreAvailability, CustomStringConvertible {
    var isUnavailable: Bool
    var description: String { "the database went away" }
  }

  @Test func aStoreThatCannotTakeARequestNowIsAnswered503() {
    let away = MissionService.serviceError(StoreAway(isUnavailable: true))
    #expect(away.status == 503 && away.message == "the database went away")
    #expect(MissionService.serviceError(StoreAway(isUnavailable: false)).status == 500)
  }

  @Test func sharedRefusalsAreConflictsOrInvalid() {
    #expect(MissionService.serviceError(MissionRefusal.missionTracked("m")).status == 409)
    #expect(
      MissionService.serviceError(MissionRefusal.trackedMissionRemoval(id: "m", state: .active))
        .status == 409)
    #expect(
      MissionService.serviceError(WorkerRefusal.invalidWorker(id: "local", reason: "r")).status
        == 422)
    #expect(
      MissionService.serviceError(WorkerRefusal.workerTracking(worker: "w", mission: "m"))
        .status == 409)
  }
}
