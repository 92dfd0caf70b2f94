import Foundation
import Testing

@testable import MissionTrackCLI

/// Missions past their deadline expire as soon as any command opens the database.
@Suite struct DeadlineTests {
  @Test func aMissionPastItsDeadlineIsExpiredAndNoLongerOffered() async throws {
    let box = try CLISandbox()
    let csv = box.path("missions.csv")
    try """
    id,lat,lon,title,deadline
    late,59.6170,17.7218,Too late,2020-01-01T00:00:00Z
    soon,59.6171,17.7219,Still open,2999-01-01T00:00:00Z
    """.write(toFile: csv, atomically: true, encoding: .utf8)
    #expect(await box.run(["missions", "import", csv]).status == 0)

    let nearby = await box.run(["nearby", "--lat", "59.617", "--lon", "17.7218", "--json"])
    #expect(nearby.status == 0)
    #expect(CLISandbox.jsonLines(nearby.out).compactMap { $0["id"] as? String } == ["soon"])

    let list = await box.run(["missions", "list", "--json"])
    let states = Dictionary(
      uniqueKeysWithValues: CLISandbox.jsonLines(list.out).map {
        ($0["id"] as? String ?? "", $0["state"] as? String ?? "")
      })
    #expect(states == ["late": "expired", "soon": "open"])

    let start = await box.run(["missions", "accept", "late"])
    #expect(start.status == 1)
    #expect(start.err.contains("it is expired"))
  }
}
