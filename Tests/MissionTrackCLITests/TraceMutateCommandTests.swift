import CommandLineSupport
import Foundation
import MissionTracking
import Testing
import TraceFormats

@testable import MissionTrackCLI

/// `missiontrack trace mutate`: repeatable bytes, valid output in the input's format, and
/// one-line usage errors for hostile values.
@Suite struct TraceMutateCommandTests {
  static let schema = CLISandbox.packageRoot.deletingLastPathComponent()
    .appendingPathComponent("shared/reference/schema/gpx-1.1.xsd").path
  static let canValidate =
    FileManager.default.fileExists(atPath: schema)
    && FileManager.default.isExecutableFile(atPath: "/usr/bin/xmllint")

  static let faults = [
    "--noise-m", "5", "--dropout", "0.1", "--outage", "60+30", "--outage", "300+10",
    "--jump-m", "300", "--jump-every", "50", "--duplicate", "0.05", "--reorder", "0.05",
  ]

  func run(_ arguments: [String]) async -> (status: Int32, out: String, err: String) {
    let console = Console.capture()
    let status = await MissionTrackTool.run(arguments, console: console)
    return (status, console.capturedOutput, console.capturedError)
  }

  func read(_ path: String) throws -> (fixes: [Fix], format: TraceFormat?) {
    let reader = try TraceReader(path: path)
    var fixes: [Fix] = []
    try reader.forEachBatch { fixes += $0 }
    return (fixes, reader.format)
  }

  @Test(arguments: [CLISandbox.walkGPX, CLISandbox.walkNMEA])
  func theSameSeedWritesTheSameBytesAndAnotherSeedOthers(_ input: String) async throws {
    let box = try CLISandbox()
    var files: [Data] = []
    for (name, seed) in [("a", "7"), ("b", "7"), ("c", "8")] {
      let out = box.path(name)
      let result = await run(["trace", "mutate", input, "-o", out, "--seed", seed] + Self.faults)
      #expect(result.status == 0, "\(result.err)")
      #expect(result.out.isEmpty)
      #expect(result.err.hasSuffix("-> \(out)\n"))
      files.append(try Data(contentsOf: URL(fileURLWithPath: out)))
    }
    #expect(files[0] == files[1])
    #expect(files[0] != files[2])
  }

  @Test func aGPXWalkStaysGPXAndKeepsTheCountsTheSummaryGives() async throws {
    let box = try CLISandbox()
    let out = box.path("noisy.gpx")
    let result = await run(
      ["trace", "mutate", CLISandbox.walkGPX, "-o", out, "--dropout", "0.25", "--seed", "3"])
    #expect(result.status == 0, "\(result.err)")
    let original = try read(CLISandbox.walkGPX).fixes
    let (fixes, format) = try read(out)
    #expect(format == .gpx)
    #expect(
      result.err == "gpx: \(original.count) fixes in, \(fixes.count) out "
        + "(dropout \(original.count - fixes.count)) -> \(out)\n")
    #expect(abs(Double(fixes.count) / Double(original.count) - 0.75) < 0.05)
  }

  @Test(.enabled(if: canValidate, "needs ../shared/reference/schema and xmllint"))
  func mutatedGPXValidatesAgainstTheSchema() async throws {
    let box = try CLISandbox()
    let out = box.path("mutated.gpx")
    let result = await run(["trace", "mutate", CLISandbox.walkGPX, "-o", out] + Self.faults)
    #expect(result.status == 0, "\(result.err)")
    let lint = Process()
    lint.executableURL = URL(fileURLWithPath: "/usr/bin/xmllint")
    lint.arguments = ["--noout", "--schema", Self.schema, out]
    lint.standardOutput = FileHandle.nullDevice
    lint.standardError = FileHandle.nullDevice
    try lint.run()
    lint.waitUntilExit()
    #expect(lint.terminationStatus == 0)
  }

  @Test func nmeaStaysNMEAAndGpsdJSONOnRequestBothDecode() async throws {
    let box = try CLISandbox()
    let nmea = box.path("m.nmea")
    let json = box.path("m.json")
    let common = ["--noise-m", "3", "--duplicate", "0.1", "--seed", "5"]
    let first = await run(["trace", "mutate", CLISandbox.walkNMEA, "-o", nmea] + common)
    let second = await run(
      ["trace", "mutate", CLISandbox.walkNMEA, "-o", json, "--to", "gpsd-json"] + common)
    #expect(first.status == 0 && second.status == 0, "\(first.err) \(second.err)")
    let original = try read(CLISandbox.walkNMEA).fixes
    let fromNMEA = try read(nmea)
    let fromJSON = try read(json)
    #expect(fromNMEA.format == .nmea)
    #expect(fromJSON.format == .gpsdJSON)
    // A duplicate follows its original, so both readers fold it into its epoch again.
    #expect(fromNMEA.fixes.count == original.count)
    #expect(fromJSON.fixes.count == original.count)
    #expect(first.err.contains("duplicated "))
    let moved = zip(original, fromNMEA.fixes).map { $0.coordinate.distance(to: $1.coordinate) }
    #expect(moved.allSatisfy { $0 < 30 } && moved.contains { $0 > 1 })
  }

  @Test func dashWritesToStandardOutput() async throws {
    let result = await run(["trace", "mutate", CLISandbox.walkGPX, "-o", "-", "--to", "gpsd-json"])
    #expect(result.status == 0, "\(result.err)")
    #expect(result.out.hasPrefix("{\"class\":\"TPV\""))
    #expect(result.err.hasSuffix("-> standard output\n"))
  }

  @Test(arguments: [
    ["--dropout", "1.5"], ["--dropout", "-0.1"], ["--duplicate", "nan"], ["--reorder", "2"],
    ["--noise-m", "-1"], ["--noise-m", "inf"], ["--jump-m", "-5", "--jump-every", "3"],
    ["--jump-m", "5"], ["--jump-every", "5"], ["--jump-m", "5", "--jump-every", "0"],
    ["--outage", "10"], ["--outage", "10+0"], ["--outage", "x+5"], ["--outage", "-1+5"],
    ["--outage", "0x10+0x1p4"], ["--outage", "0x10+5"], ["--outage", "10+0x1p4"],
    ["--seed", "-1"], ["--seed", "x"], ["--to", "kml"], ["--bogus"],
  ])
  func hostileValuesAreOneUsageLine(_ flags: [String]) async throws {
    let box = try CLISandbox()
    let out = box.path("never.gpx")
    let result = await run(["trace", "mutate", CLISandbox.walkGPX, "-o", out] + flags)
    #expect(result.status == 64)
    #expect(result.err.hasPrefix("missiontrack trace: "))
    #expect(result.err.split(separator: "\n").count == 1, "\(result.err)")
    #expect(!FileManager.default.fileExists(atPath: out))
  }

  @Test func missingArgumentsAndUnreadableInput() async throws {
    let noOutput = await run(["trace", "mutate", CLISandbox.walkGPX])
    #expect(noOutput.status == 64)
    #expect(noOutput.err == "missiontrack trace: -o OUT is required (- for standard output)\n")
    let noInput = await run(["trace", "mutate", "-o", "/tmp/x.gpx"])
    #expect(noInput.status == 64)
    let box = try CLISandbox()
    let missing = await run(["trace", "mutate", box.path("none.gpx"), "-o", box.path("o.gpx")])
    #expect(missing.status == 1)
    #expect(missing.err.split(separator: "\n").count == 1)
    let unknown = await run(["trace", "shuffle"])
    #expect(unknown.status == 64)
  }

  @Test func theManualSaysWhatEachFaultIsFor() async {
    let result = await run(["trace", "mutate", "--help"])
    #expect(result.status == 0)
    for flag in [
      "--noise-m", "--dropout", "--outage", "--jump-m", "--jump-every", "--duplicate",
      "--reorder", "--seed",
    ] {
      #expect(result.out.contains(flag), "\(flag) missing")
    }
    #expect(result.out.contains("arrive exactly once"))
    let group = await run(["trace", "--help"])
    #expect(group.out.contains("mutate"))
    let overview = await run(["--help"])
    #expect(overview.out.contains("\n  trace "))
  }
}
