import Foundation
import Testing

@testable import MissionTrackCLI

/// Missions past their deadline expire when a command that changes missions or tracks runs;
/// a command that only reads shows them expired and writes nothing.
@Suite struct DeadlineTests {
  /// A sandbox with two imported missions: `late`, past its deadline, and `soon`.
  static func lateAndSoon() async throws -> CLISandbox {
    let box = try CLISandbox()
    let csv = box.path("missions.csv")
    try """
    id,lat,lon,title,deadline
    late,59.6170,17.7218,Too late,2020-01-01T00:00:00Z
    soon,59.6171,17.7219,Still open,2999-01-01T00:00:00Z
    """.write(toFile: csv, atomically: true, encoding: .utf8)
    #expect(await box.run(["missions", "import", csv]).status == 0)
    return box
  }

  @Test func aMissionPastItsDeadlineIsExpiredAndNoLongerOffered() async throws {
    let box = try await Self.lateAndSoon()

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

  /// Issue 23: expiry is a step of the commands that write, not of opening `--db`.
  @Test func aReadOnlyCommandLeavesADatabasePastADeadlineUnchanged() async throws {
    let box = try await Self.lateAndSoon()
    let files = { (try? FileManager.default.contentsOfDirectory(atPath: box.directory.path)) ?? [] }
    let before = try Data(contentsOf: URL(fileURLWithPath: box.databasePath))
    let filesBefore = files().sorted()
    for command in [
      ["nearby", "--lat", "59.617", "--lon", "17.7218", "--json"],
      ["nearby", "--lat", "59.617", "--lon", "17.7218", "--state", "expired", "--json"],
      ["missions", "list", "--json"], ["missions", "list", "--state", "open", "--json"],
      ["missions", "show", "late", "--json"],
    ] {
      let result = await box.run(command)
      #expect(result.status == 0, "\(command): \(result.err)")
      #expect(
        try Data(contentsOf: URL(fileURLWithPath: box.databasePath)) == before,
        "\(command) wrote to the database")
      #expect(files().sorted() == filesBefore, "\(command) left files behind")
    }
    // What they showed: the late mission as expired (what the next write records).
    let expired = await box.run([
      "nearby", "--lat", "59.617", "--lon", "17.7218", "--state", "expired", "--json",
    ])
    #expect(CLISandbox.jsonLines(expired.out).compactMap { $0["id"] as? String } == ["late"])
    let open = await box.run(["missions", "list", "--state", "open", "--json"])
    #expect(CLISandbox.jsonLines(open.out).compactMap { $0["id"] as? String } == ["soon"])
    let shown = await box.run(["missions", "show", "late", "--json"])
    #expect(CLISandbox.jsonLines(shown.out).first?["state"] as? String == "expired")
    // A command that changes missions records the expiry.
    #expect(await box.run(["missions", "accept", "soon"]).status == 0)
    #expect(try Data(contentsOf: URL(fileURLWithPath: box.databasePath)) != before)
    let list = await box.run(["missions", "list", "--state", "expired", "--json"])
    #expect(CLISandbox.jsonLines(list.out).compactMap { $0["id"] as? String } == ["late"])
  }
}
