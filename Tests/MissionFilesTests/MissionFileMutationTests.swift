import Foundation
import MissionTracking
import Testing
import TextRules

@testable import MissionFiles

/// The mission-file fuzzer's checks (Tools/fuzz/FuzzMissions.swift) on seeded mutations of
/// small valid files, so `swift test` catches what the fuzzer would: every accepted record
/// is a valid mission and every refusal is one line with a line number.
@Suite struct MissionFileMutationTests {
  static let seeds: [String] = [
    "id,lat,lon,title,radius_m,deadline,state\n1,59.6,17.7,\"a \"\"b\"\"\nc\",40,2026-05-01T12:00:00Z,open\n",
    #"[{"id":"caf\u00e9","lat":1.5,"lon":-2.5,"reward":"350","currency":"sek","x":{"y":[1,2]}}]"#,
    #"{"type":"FeatureCollection","features":[{"type":"Feature","id":7,"geometry":{"type":"Point","coordinates":[17.7,59.6]},"properties":{"title":"t","radius_m":30}}]}"#,
  ]

  /// Bytes that make interesting mutations: structure, quotes, digits, controls, UTF-8.
  static let alphabet: [UInt8] =
    Array(#","{}[]:\ 0123456789.-+eE"#.utf8) + [0x0A, 0x0D, 0x00, 0x1B, 0xC3, 0xA9, 0xCC, 0x81]

  @Test func mutatedFilesGiveValidMissionsOrOneLineErrors() {
    var state: UInt64 = 0x5EED_1D5
    func next() -> UInt64 {
      // SplitMix64.
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
    var accepted = 0
    for round in 0..<3000 {
      var bytes = Array(Self.seeds[round % Self.seeds.count].utf8)
      for _ in 0..<(1 + Int(next() % 4)) {
        let at = Int(next() % UInt64(bytes.count + 1))
        switch next() % 3 {
        case 0 where at < bytes.count: bytes.remove(at: at)
        case 1 where at < bytes.count:
          bytes[at] = Self.alphabet[Int(next() % UInt64(Self.alphabet.count))]
        default: bytes.insert(Self.alphabet[Int(next() % UInt64(Self.alphabet.count))], at: at)
        }
      }
      for format in MissionFileFormat.allCases {
        do {
          let records = try MissionFileReader.records(bytes, format: format, file: "m")
          accepted += records.count
          var ids = Set<String>()
          for record in records {
            let mission = record.mission
            #expect(
              abs(mission.coordinate.latitude) <= 90 && abs(mission.coordinate.longitude) <= 180)
            #expect(
              mission.geofenceRadiusMeters > 0
                && mission.geofenceRadiusMeters <= Earth.halfCircumferenceMeters)
            #expect(Array(MissionID.normalized(mission.id).utf8) == Array(mission.id.utf8))
            #expect(ids.insert(mission.id).inserted)
            #expect((try? JSONParser.parse(Array(record.properties.utf8))) != nil)
          }
        } catch {
          #expect(!error.description.contains("\n") && !error.description.contains("\r"))
          if case .invalidMissionFile(_, let line, _, _, _) = error { #expect(line >= 1) }
        }
      }
    }
    // The mutations are mild enough that many files still import.
    #expect(accepted > 200)
  }
}
