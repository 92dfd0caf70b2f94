import CommandLineSupport
import Foundation
import MissionStore
import MissionTracking
import Testing

@testable import MissionTrackCLI

/// `track` in process with the raw NMEA source on a regular file and a named pipe; the gpsd
/// source itself is tested against a real gpsd in GPSDSourceTests.
@Suite struct TrackCommandTests {
  @Test func trackingFromAnNMEAFileArrivesAndLeavesTheMissionActive() async throws {
    let box = try CLISandbox()
    try await box.acceptedDemo()
    let path = box.databasePath
    let console = Console.capture()
    let status = await MissionTrackTool.run(
      ["track", "--nmea", CLISandbox.walkNMEA, "--db", path, "--mission", "sig-101"],
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
    let box = try CLISandbox()
    try await box.acceptedDemo()
    let path = box.databasePath
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

/// The built tool, live on a named pipe, stopped with SIGTERM.
@Suite struct TrackProcessTests {
  @Test(.enabled(if: BuiltTool.isBuilt, "needs the built missiontrack (swift build)"))
  func sigtermFlushesRecordsTheStopAndKeepsTheMissionActive() async throws {
    let box = try CLISandbox()
    try await box.acceptedDemo()
    let directory = box.directory
    let path = box.databasePath
    let fifo = directory.appendingPathComponent("gps.fifo").path
    #expect(mkfifo(fifo, 0o600) == 0)

    let process = try BuiltTool.start(
      ["track", "--nmea", fifo, "--db", path, "--mission", "sig-101"], in: directory, tag: "track")
    // Opening for writing waits until the tool has opened the pipe for reading.
    let writer = try FileHandle(forWritingTo: URL(fileURLWithPath: fifo))
    let nmea = try String(contentsOfFile: CLISandbox.walkNMEA, encoding: .utf8)
    let lines = nmea.split(separator: "\n").prefix(400)
    writer.write(Data((lines.joined(separator: "\n") + "\n").utf8))
    // Wait until fixes are being printed, then stop the tool the way a supervisor would.
    let output = directory.appendingPathComponent("track.out")
    let deadline = Date().addingTimeInterval(30)
    while Date() < deadline,
      (try? String(contentsOf: output, encoding: .utf8))?.contains(#""type":"fix""#) != true
    {
      try await Task.sleep(for: .milliseconds(20))
    }
    kill(process.processIdentifier, SIGTERM)
    let exitDeadline = Date().addingTimeInterval(20)
    while process.isRunning && Date() < exitDeadline {
      try await Task.sleep(for: .milliseconds(20))
    }
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
    try? writer.close()
    #expect(process.terminationReason == .exit && process.terminationStatus == 0)
    let printed = try String(contentsOf: output, encoding: .utf8)
    #expect(printed.contains(#""status":"ended","detail":"stopped by SIGTERM""#))
    let stored = try MissionDatabase(path: path)
    #expect(try stored.activeMission()?.mission.id == "sig-101")
    let fixLines = printed.split(separator: "\n").filter { $0.contains(#""type":"fix""#) }
    #expect(try stored.track(ofMission: "sig-101").count == fixLines.count)
    #expect(
      try stored.eventLines(ofMission: "sig-101").contains { $0.contains("stopped by SIGTERM") })
  }
}
