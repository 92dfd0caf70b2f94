import Testing

@testable import MissionTracking

@Suite struct MissionActionTests {
  @Test func everyStateHasExactlyTheDocumentedExits() {
    let legal: [MissionState: Set<MissionState>] = [
      .open: [.accepted, .cancelled, .expired],
      .accepted: [.accepted, .active, .cancelled, .expired],
      .active: [.active, .arrived, .submitted, .cancelled],
      .arrived: [.arrived, .submitted, .cancelled],
      .submitted: [.submitted, .completed],
      .completed: [.completed],
      .cancelled: [.cancelled],
      .expired: [.expired],
    ]
    for state in MissionState.allCases {
      let reachable = Set(MissionAction.allCases.compactMap { $0.target(from: state) })
      #expect(reachable == legal[state], "\(state)")
    }
    #expect(MissionAction.start.target(from: .open) == nil)
    #expect(MissionAction.expire.target(from: .active) == nil)
    #expect(MissionAction.cancel.target(from: .submitted) == nil)
  }
}
