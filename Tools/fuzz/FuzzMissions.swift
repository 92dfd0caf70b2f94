// libFuzzer entry point for the mission file readers (CSV, JSON, GeoJSON). Built by
// Tools/fuzz/run-missions, which compiles it together with the sources of MissionFiles (no
// SQLite: the readers are pure); not part of the SwiftPM package.
//
// Oracle beyond "no crash, no hang, bounded memory": every record that is accepted is a
// valid mission (finite coordinates in range, a radius in (0, πR], a non-blank NFC id,
// ids unique in the file) whose kept unknown fields are one JSON object with unique keys;
// every refusal is one line with a line number >= 1.
import MissionTracking
import TextRules

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMissionFile(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  for format in MissionFileFormat.allCases {
    do {
      let records = try MissionFileReader.records(bytes, format: format, file: "fuzz")
      check(records)
    } catch {
      let text = error.description
      precondition(!text.contains("\n") && !text.contains("\r"), "error on two lines: \(text)")
      if case .invalidMissionFile(_, let line, _, _, _) = error {
        precondition(line >= 1, "error without a line")
      }
    }
  }
  _ = MissionFileFormat(sniffing: bytes)
  return 0
}

private func check(_ records: [MissionRecord]) {
  var ids = Set<String>()
  for record in records {
    let mission = record.mission
    let c = mission.coordinate
    precondition(c.latitude.isFinite && c.latitude.magnitude <= 90, "latitude \(c.latitude)")
    precondition(c.longitude.isFinite && c.longitude.magnitude <= 180, "longitude \(c.longitude)")
    precondition(
      mission.geofenceRadiusMeters > 0
        && mission.geofenceRadiusMeters <= Earth.halfCircumferenceMeters,
      "radius \(mission.geofenceRadiusMeters)")
    precondition(record.line >= 1)
    precondition(!mission.id.isEmpty, "empty id")
    precondition(
      Array(MissionID.normalized(mission.id).utf8) == Array(mission.id.utf8), "id not in NFC")
    precondition(ids.insert(mission.id).inserted, "duplicate id \(mission.id)")
    do {
      let properties = try JSONParser.parse(Array(record.properties.utf8))
      guard case .object = properties.value else { preconditionFailure("properties not an object") }
    } catch {
      preconditionFailure("kept properties are not JSON: \(error.reason) in \(record.properties)")
    }
  }
}
