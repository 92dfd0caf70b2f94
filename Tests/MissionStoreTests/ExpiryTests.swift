import Foundation
import MissionTracking
import Testing

@testable import MissionStore

@Suite struct ExpiryTests {
  @Test func onlyOpenOrAcceptedMissionsPastTheirDeadlineExpire() throws {
    let directory = try TemporaryDirectory()
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    var late = Fixtures.mission("late")
    late.deadline = now.addingTimeInterval(-1)
    var lateAccepted = Fixtures.mission("late-accepted", state: .accepted)
    lateAccepted.deadline = now.addingTimeInterval(-3600)
    var lateActive = Fixtures.mission("late-active", state: .active)
    lateActive.deadline = now.addingTimeInterval(-3600)
    var onTime = Fixtures.mission("on-time")
    onTime.deadline = now.addingTimeInterval(60)
    var undated = Fixtures.mission("undated")
    undated.deadline = nil
    let database = try Fixtures.database(
      in: directory, missions: [late, lateAccepted, lateActive, onTime, undated])
    #expect(try database.expireDue(at: now) == ["late", "late-accepted"])
    #expect(try database.mission(id: "late")?.state == .expired)
    #expect(try database.mission(id: "late-accepted")?.state == .expired)
    #expect(try database.mission(id: "late-active")?.state == .active)
    #expect(try database.mission(id: "on-time")?.state == .open)
    #expect(try database.transitions(ofMission: "late").last?.to == .expired)
    #expect(try database.expireDue(at: now).isEmpty)
  }
}
