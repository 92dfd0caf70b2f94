import Foundation
import MissionStore
import MissionTracking
import Testing

@testable import MissionTrackCLI

/// `track` in process with the raw NMEA source on a regular file and a named pipe; the gpsd
/// source itself is tested against a real gpsd in GPSDSourceTests.
@Suite struct TrackCommandTests {
  private func demoDatabase() throws -> (path: String, directory: URL) {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("track-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let path = directory.appendingPathComponent("db.sqlite").path
    let database = try MissionDatabase(path: path)
    _ = try database.importMissions(
      from: ReplayCommandTests.root.appendingPathComponent("Traces/demo/missions.geojson"))
    try database.apply(.accept, toMission: "sig-101")
    try database.close()
    return (path, directory)
  }

  @Test func trackingFromAnNMEAFileArrivesAndLeavesTheMissionActive() async throws {
    let (path, directory) = try demoDatabase()
    defer { try? FileManager.default.removeItem(at: directory) }
    let console = Console.capture()
    let status = await MissionTrackTool.run(
      ["track", "--nmea", ReplayCommandTests.walkNMEA, "--db", path, "--mission", "sig-101"],
      console: console)
    #expect(status == 0, "\(console.capturedError)")
    let output = console.capturedOutput
    #expect(output.contains(#""type":"source","time""#))
    #expect(output.contains(#""status":"connected""#))
    #expect(output.contains(#""type":"enter""#))
    #expect(output.contains(#""from":"active","to":"arrived""#))
    let database = try MissionDatabase(path: path)
    #expect(try database.activeMission()?.mission.id == "sig-101")
    #expect(try database.track(ofMission: "sig-101").count > 50)
  }

  @Test func badSourceFlagsAreUsageErrors() async throws {
    let (path, directory) = try demoDatabase()
    defer { try? FileManager.default.removeItem(at: directory) }
    for arguments in [
      ["track", "--nmea", "x", "--gpsd", "localhost:1", "--db", path],
      ["track", "--baud", "9600", "--db", path],
      ["track", "--nmea", "/dev/null", "--baud", "1234", "--db", path],
      ["track", "--gpsd", "localhost:notaport", "--db", path],
    ] {
      let console = Console.capture()
      #expect(await MissionTrackTool.run(arguments, console: console) == 64, "\(arguments)")
    }
  }
}
