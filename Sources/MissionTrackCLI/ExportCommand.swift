import CommandLineSupport
import Foundation
import MissionTracking
import TraceFormats

/// `missiontrack export ID`: a mission's stored track as GPX or GeoJSON, or its events as
/// JSON lines.
enum ExportCommand: Command {
  static let name = "export"
  static let summary = "Write a mission's track (GPX, GeoJSON) or its events (JSON lines)"
  static let help = """
    NAME
      missiontrack export - get a mission's recorded track or events out

    SYNOPSIS
      missiontrack export [--format gpx|geojson|jsonl] [-o FILE|-] [--db PATH|URI] [--] ID

    DESCRIPTION
      Writes what was recorded for mission ID:
        gpx      the delivered track as a GPX 1.1 document (one trk, one trkseg; time, fix
                 mode, hdop from the accuracy, speed and course in Garmin's
                 TrackPointExtension)
        geojson  the delivered track as a GeoJSON Feature with a LineString ([lon, lat])
                 and the fix times in properties.coordinateProperties.times
        jsonl    every stored event of the mission (fix, enter, dwell, exit, crossed,
                 state, source, rejected), one JSON object per line, in recorded order
      The delivered track is what passed cleaning and the distance filter. Without -o the
      document goes to standard output; with -o it replaces FILE atomically (a reader never
      sees half a file) and keeps FILE's permissions; FILE must be a regular file (or not
      exist yet) and not the database. -o - is standard output. The format defaults from
      FILE's extension (.gpx, .geojson, .jsonl).

    OPTIONS
      --format F   gpx, geojson or jsonl.
      -o FILE      Write to FILE instead of standard output (- for standard output).
      --db PATH|URI
                   The database (default missiontrack.sqlite), or a PostgreSQL URI
                   (postgresql://USER@HOST:PORT/DB).

    EXIT STATUS
      0 success, 1 unknown mission, no database or unwritable FILE, 64 usage error.

    EXAMPLES
      missiontrack export sig-101 --format gpx -o walk.gpx
      missiontrack export sig-101 --format geojson | jq '.geometry.coordinates | length'
      missiontrack export sig-101 --format jsonl | grep '"type":"enter"'
    """

  /// The formats `--format` accepts.
  enum Format: String, CaseIterable {
    case gpx, geojson, jsonl
  }

  static func run(_ arguments: inout ArgumentList, console: Console) async throws -> Int32 {
    let formatText = try arguments.option("--format")
    let output = try arguments.option("-o") ?? arguments.option("--output")
    let db = try DatabaseOption(&arguments)
    let id = try arguments.missionID()
    let format: Format
    if let formatText {
      guard let parsed = Format(rawValue: formatText.lowercased()) else {
        throw CLIError.usage("--format expects gpx, geojson or jsonl, got '\(formatText)'")
      }
      format = parsed
    } else if let output, output != "-",
      let parsed = Format(rawValue: URL(fileURLWithPath: output).pathExtension.lowercased())
    {
      format = parsed
    } else {
      throw CLIError.usage(
        "--format gpx|geojson|jsonl is required (or -o FILE.gpx|.geojson|.jsonl)")
    }
    let database = try db.openCatalog(readOnly: true)
    let text: String = try await CLIError.asyncRuntime {
      guard let mission = try await database.mission(id: id) else {
        throw CLIError.failure("no mission with id '\(id)'")
      }
      let name = mission.title.isEmpty ? mission.id : "\(mission.id): \(mission.title)"
      switch format {
      case .gpx:
        return GPXWriter.document(
          for: try await database.track(ofMission: mission.id), trackName: name)
      case .geojson:
        return GeoJSONWriter.document(
          for: try await database.track(ofMission: mission.id), name: name)
      case .jsonl:
        let lines = try await database.eventLines(ofMission: mission.id)
        return lines.isEmpty ? "" : lines.joined(separator: "\n") + "\n"
      }
    }
    if output == nil || output == "-", text.isEmpty { return 0 }
    try OutputFile.write(text, toPath: output, console: console, database: db.databaseFile)
    if let output, output != "-" {
      console.err(
        "wrote \(format.rawValue) of mission \(id.terminalSafe) to \(output.terminalSafe)")
    }
    return 0
  }
}
