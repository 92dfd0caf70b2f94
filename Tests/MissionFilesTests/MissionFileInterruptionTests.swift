import Synchronization
import Testing

@testable import MissionFiles

/// A read of a large mission file stops with `.interrupted` once its caller's check says
/// so, in every format and phase (the CSV's split, its validation in parallel chunks, the
/// validation of JSON elements and GeoJSON features).
@Suite struct MissionFileInterruptionTests {
  /// Counts the checks and says stop from the `stopAt`-th on.
  final class Check: Sendable {
    let stopAt: Int
    private let calls = Atomic<Int>(0)

    init(stopAt: Int) { self.stopAt = stopAt }

    var count: Int { calls.load(ordering: .relaxed) }

    func isInterrupted() -> Bool { calls.add(1, ordering: .relaxed).newValue >= stopAt }
  }

  /// Rows enough for a CSV validated in parallel chunks.
  static let count = 2 * MissionFileReader.csvChunkRows + 500

  static func file(_ format: MissionFileFormat) -> [UInt8] {
    let rows = 0..<count
    let text =
      switch format {
      case .csv: "id,lat,lon\n" + rows.map { "m\($0),1,2\n" }.joined()
      case .json:
        "[" + rows.map { #"{"id":"m\#($0)","lat":1,"lon":2}"# }.joined(separator: ",") + "]"
      case .geojson:
        #"{"type":"FeatureCollection","features":["#
          + rows.map {
            #"{"type":"Feature","id":"m\#($0)","geometry":{"type":"Point","coordinates":[2,1]}}"#
          }.joined(separator: ",") + "]}"
      }
    return Array(text.utf8)
  }

  /// Stopped at the second check (in the CSV's split, the JSON parse) and at the last one
  /// a whole read makes (in the validation that comes last).
  @Test(arguments: [MissionFileFormat.csv, .json, .geojson])
  func aReadStopsWhenItsCheckSaysStop(format: MissionFileFormat) throws {
    let bytes = Self.file(format)
    let never = Check(stopAt: .max)
    let records = try MissionFileReader.records(
      bytes, format: format, file: "m", isInterrupted: { never.isInterrupted() })
    #expect(records.count == Self.count)
    // Every few hundred records or more, not per record.
    #expect((3...Self.count / 100).contains(never.count), "\(never.count) checks")
    for stopAt in [2, never.count] {
      let check = Check(stopAt: stopAt)
      #expect(throws: MissionFileError.interrupted(file: "m"), "stopped at check \(stopAt)") {
        try MissionFileReader.records(
          bytes, format: format, file: "m", isInterrupted: { check.isInterrupted() })
      }
    }
  }
}
