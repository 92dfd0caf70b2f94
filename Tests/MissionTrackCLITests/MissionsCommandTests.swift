import Foundation
import MissionStore
import MissionTracking
import Testing

@testable import MissionTrackCLI

/// `missions import|list|show|accept|…`, in process on a temporary database.
@Suite struct MissionsCommandTests {
  @Test func importStoresTheDemoMissionsAndSummarisesOnStandardError() async throws {
    let box = try CLISandbox()
    let result = await box.run(["missions", "import", CLISandbox.demoMissions])
    #expect(result.status == 0)
    #expect(result.out.isEmpty)
    #expect(result.err.contains("imported 6 missions"))
    #expect(result.err.contains("6 new, 0 replaced"))
    let again = await box.run(["missions", "import", CLISandbox.demoMissions, "--replace"])
    #expect(again.status == 0)
    #expect(again.err.contains("0 new, 6 replaced"))
  }

  @Test func aBadRowFailsTheWholeImportWithItsLine() async throws {
    let box = try CLISandbox()
    let csv = box.path("bad.csv")
    try "id,lat,lon,title\na1,59.6,17.7,ok\na2,95.0,17.7,bad latitude\n"
      .write(toFile: csv, atomically: true, encoding: .utf8)
    let result = await box.run(["missions", "import", csv])
    #expect(result.status == 1)
    #expect(result.out.isEmpty)
    #expect(result.err.split(separator: "\n").count == 1)
    #expect(result.err.contains("bad.csv:3"))
    #expect(result.err.contains("lat"))
    // All or nothing includes the database file: a failed first import leaves none.
    #expect(!FileManager.default.fileExists(atPath: box.databasePath))
    let list = await box.run(["missions", "list", "--json"])
    #expect(list.status == 1)
    #expect(list.out.isEmpty)
  }

  @Test func importingADuplicateIdWithoutReplaceChangesNothing() async throws {
    let box = try CLISandbox()
    try await box.importDemo()
    _ = await box.run(["missions", "accept", "sig-101"])
    let result = await box.run(["missions", "import", CLISandbox.demoMissions])
    #expect(result.status == 1)
    #expect(result.err.contains("already stored"))
    let show = await box.run(["missions", "show", "sig-101", "--json"])
    #expect(CLISandbox.jsonLines(show.out).first?["state"] as? String == "accepted")
  }

  @Test func listPrintsATableOrJSONLinesWithTheDocumentedKeys() async throws {
    let box = try CLISandbox()
    try await box.importDemo()
    let table = await box.run(["missions", "list"])
    #expect(table.status == 0)
    let lines = table.out.split(separator: "\n")
    #expect(lines.count == 7)
    #expect(lines.first?.hasPrefix("ID") == true)
    #expect(table.out.contains("350 SEK"))
    #expect(table.out.contains("40 m"))
    let json = await box.run(["missions", "list", "--json"])
    let objects = CLISandbox.jsonLines(json.out)
    #expect(objects.count == 6)
    let first = try #require(objects.first)
    #expect(first["id"] as? String == "sig-101")
    #expect(first["reward"] as? String == "350")
    #expect(first["currency"] as? String == "SEK")
    #expect(first["radius_m"] as? Double == 40)
    let allowed: Set<String> = [
      "id", "lat", "lon", "state", "title", "reward", "currency", "address", "radius_m",
      "deadline",
    ]
    for object in objects { #expect(Set(object.keys).isSubset(of: allowed)) }
  }

  @Test func listFiltersByState() async throws {
    let box = try CLISandbox()
    try await box.importDemo()
    _ = await box.run(["missions", "accept", "sig-103"])
    let accepted = await box.run(["missions", "list", "--state", "accepted", "--json"])
    #expect(CLISandbox.jsonLines(accepted.out).map { $0["id"] as? String } == ["sig-103"])
    let open = await box.run(["missions", "list", "--state", "open", "--json"])
    #expect(CLISandbox.jsonLines(open.out).count == 5)
    let bad = await box.run(["missions", "list", "--state", "sleeping"])
    #expect(bad.status == 64)
    #expect(bad.err.split(separator: "\n").count == 1)
  }

  @Test func lifecycleActionsPrintTheTransitionAndAStateEvent() async throws {
    let box = try CLISandbox()
    try await box.importDemo()
    let accept = await box.run(
      ["missions", "accept", "sig-101", "--at", "2026-05-01T09:00:00Z"])
    #expect(accept.status == 0)
    #expect(accept.err == "sig-101: open → accepted\n")
    let event = try #require(CLISandbox.jsonLines(accept.out).first)
    #expect(event["type"] as? String == "state")
    #expect(event["mission_id"] as? String == "sig-101")
    #expect(event["from"] as? String == "open")
    #expect(event["to"] as? String == "accepted")
    #expect(event["time"] as? String == "2026-05-01T09:00:00.000Z")
    let start = await box.run(["missions", "start", "sig-101"])
    #expect(start.status == 0)
    #expect(start.err == "sig-101: accepted → active\n")
    let again = await box.run(["missions", "start", "sig-101"])
    #expect(again.status == 0)
    #expect(again.out.isEmpty)
    #expect(again.err.contains("already active"))
    for (action, to) in [("submit", "submitted"), ("complete", "completed")] {
      let result = await box.run(["missions", action, "sig-101"])
      #expect(result.status == 0)
      #expect(CLISandbox.jsonLines(result.out).first?["to"] as? String == to)
    }
  }

  @Test func anIllegalActionExitsOneAndChangesNothing() async throws {
    let box = try CLISandbox()
    try await box.importDemo()
    let complete = await box.run(["missions", "complete", "sig-102"])
    #expect(complete.status == 1)
    #expect(complete.out.isEmpty)
    #expect(complete.err.contains("cannot complete mission sig-102: it is open"))
    #expect(complete.err.split(separator: "\n").count == 1)
    _ = await box.run(["missions", "cancel", "sig-102"])
    let expire = await box.run(["missions", "expire", "sig-102"])
    #expect(expire.status == 1)
    #expect(expire.err.contains("it is cancelled"))
    let show = await box.run(["missions", "show", "sig-102", "--json"])
    let object = try #require(CLISandbox.jsonLines(show.out).first)
    #expect(object["state"] as? String == "cancelled")
    #expect((object["transitions"] as? [[String: Any]])?.count == 1)
  }

  @Test func anUnknownMissionIsARuntimeError() async throws {
    let box = try CLISandbox()
    try await box.importDemo()
    for arguments in [["missions", "accept", "nope"], ["missions", "show", "nope"]] {
      let result = await box.run(arguments)
      #expect(result.status == 1)
      #expect(result.err.contains("nope"))
    }
  }

  @Test func commandsOnAMissingDatabaseFailWithoutCreatingIt() async throws {
    let box = try CLISandbox()
    let result = await box.run(["missions", "list"])
    #expect(result.status == 1)
    #expect(result.err.contains("no database"))
    #expect(!FileManager.default.fileExists(atPath: box.databasePath))
  }

  @Test func showPrintsTheAuditLogTrackSizeAndFenceState() async throws {
    let box = try CLISandbox()
    try await box.importDemo()
    _ = await box.run(["missions", "accept", "sig-101", "--at", "2026-05-01T09:00:00Z"])
    _ = await box.run(["missions", "start", "sig-101", "--at", "2026-05-01T09:01:00Z"])
    try box.recordWalk(toMission: "sig-101", count: 9)
    let text = await box.run(["missions", "show", "sig-101"])
    #expect(text.status == 0)
    #expect(text.out.contains("accept  open → accepted"))
    #expect(text.out.contains("9 fixes"))
    #expect(text.out.contains("inside since"))
    let json = await box.run(["missions", "show", "sig-101", "--json"])
    let object = try #require(CLISandbox.jsonLines(json.out).first)
    #expect(object["track_fixes"] as? Int == 9)
    #expect(object["inside"] as? Bool == true)
    let log = try #require(object["transitions"] as? [[String: Any]])
    #expect(log.map { $0["action"] as? String } == ["accept", "start"])
    #expect(log.last?["time"] as? String == "2026-05-01T09:01:00.000Z")
  }

  @Test(arguments: [
    ["missions"], ["missions", "frob"], ["missions", "show"], ["missions", "accept"],
    ["missions", "accept", "a", "b"], ["missions", "list", "--bogus"],
    ["missions", "accept", "sig-101", "--at", "yesterday"], ["missions", "import"],
    ["missions", "import", "x.csv", "--format", "xml"],
  ])
  func usageErrorsExit64WithOneLine(arguments: [String]) async throws {
    let box = try CLISandbox()
    let result = await box.run(arguments)
    #expect(result.status == 64)
    #expect(result.out.isEmpty)
    #expect(result.err.split(separator: "\n").count == 1)
  }

  @Test func theGroupAndEachSubCommandHaveAManual() async throws {
    let box = try CLISandbox()
    let group = await box.run(["missions", "--help"])
    #expect(group.status == 0)
    for word in ["import", "list", "show", "accept", "start", "submit", "complete", "cancel"] {
      #expect(group.out.contains("  \(word)"))
      let page = await box.run(["missions", word, "--help"])
      #expect(page.status == 0)
      #expect(page.out.contains("missiontrack missions \(word)"))
      #expect(page.out.contains("EXAMPLES"))
    }
    let start = await box.run(["missions", "start", "--help"])
    #expect(start.out.contains("tracks the mission from its source at once"))
  }
}
