import CommandLineSupport
import Foundation
import MissionCatalog
import MissionFiles

/// `missiontrack missions import FILE`: stores the missions of a GeoJSON, CSV or JSON file,
/// all or nothing.
enum MissionsImportCommand: Command {
  static let name = "import"
  static let summary = "Import missions from GeoJSON, CSV or JSON (all or nothing)"
  static let help = """
    NAME
      missiontrack missions import - store missions from a file

    SYNOPSIS
      missiontrack missions import FILE|- [--format geojson|csv|json] [--replace]
                                   [--db PATH|URI]

    DESCRIPTION
      Reads FILE (a file or a named pipe; - reads standard input) and stores its missions
      in the database (created if missing; a failed import into a new database leaves no
      file behind). Formats:
        GeoJSON  a FeatureCollection of Point features; coordinates [lon, lat], the other
                 fields in properties
        CSV      a header row, then one mission per row
        JSON     an array of objects
      Field names are the same in all three: id (required), lat, lon (required outside
      GeoJSON), title, reward, currency, address, radius_m (default 50), deadline (RFC 3339
      with a zone), state (default open). Unknown fields are kept. Numeric ids are kept as
      their text. Ids are stored in Unicode NFC, so "café" typed with a combining accent is
      the same mission. The format comes from the extension (.geojson, .csv, .json) unless
      --format is given; for standard input, from the content ({ GeoJSON, [ JSON, else
      CSV). A repeated CSV column or JSON key, an impossible date (2024-02-30) and a radius
      above half the Earth's circumference (20,015,114 m) are bad values.

      The import is all or nothing: the first bad value stops it with FILE:LINE, the field
      and the value, and nothing is stored. A summary goes to standard error.

    OPTIONS
      --format F   geojson, csv or json, overriding the extension.
      --replace    Update missions whose id is already stored (their state too) instead of
                   failing on the duplicate.
      --db PATH|URI
                   The database (default missiontrack.sqlite), or a PostgreSQL URI
                   (postgresql://USER@HOST:PORT/DB).

    EXIT STATUS
      0 imported, 1 bad file or duplicate id (nothing imported), 64 usage error.

    EXAMPLES
      missiontrack missions import Traces/demo/missions.geojson
      missiontrack missions import jobs.csv --db field.sqlite
      missiontrack missions import fixtures.txt --format json --replace
      curl -s https://example.org/jobs.csv | missiontrack missions import -
    """

  static func run(_ arguments: inout ArgumentList, console: Console) async throws -> Int32 {
    let replace = arguments.flag("--replace")
    var format: MissionFileFormat?
    if let text = try arguments.option("--format") {
      guard let parsed = MissionFileFormat(rawValue: text.lowercased()) else {
        throw CLIError.usage("--format expects geojson, csv or json, got '\(text)'")
      }
      format = parsed
    }
    let db = try DatabaseOption(&arguments)
    let files = try arguments.positionals()
    guard files.count == 1, let file = files.first else {
      throw CLIError.usage(files.isEmpty ? "which FILE? (a path or -)" : "one FILE only")
    }
    // Read (and pick the format) before the database is opened: an unreadable input never
    // creates a database file.
    let bytes: [UInt8]
    let name: String
    let resolved: MissionFileFormat
    if file == "-" {
      name = "standard input"
      bytes = try CLIError.runtime { try InputFile.bytes(descriptor: STDIN_FILENO, name: name) }
      resolved = format ?? MissionFileFormat(sniffing: bytes)
    } else {
      name = URL(fileURLWithPath: file).lastPathComponent
      bytes = try CLIError.runtime { try InputFile.bytes(atPath: file) }
      guard let known = format ?? MissionFileFormat(fileName: name, bytes: bytes) else {
        throw CLIError.usage(
          "cannot tell the format of \(file.terminalSafe) from its extension: "
            + "pass --format geojson|csv|json")
      }
      resolved = known
    }
    let created = db.postgresURI == nil && !db.exists
    let database = try db.openCatalog(mustExist: false)
    let summary: MissionImportCount
    do {
      try await db.expireDue(database)
      summary = try await CLIError.asyncRuntime {
        try await database.importMissionFile(
          bytes, format: resolved, fileName: name, replacingExisting: replace)
      }
    } catch {
      // All or nothing includes the file: a failed first import leaves no empty database.
      try? await database.close()
      if created { db.removeFiles() }
      throw error
    }
    let count = summary.imported
    let added = count - summary.replaced
    let source = file == "-" ? "standard input" : file.terminalSafe
    var line = "imported \(count) mission\(count == 1 ? "" : "s") from \(source)"
    line += " (\(summary.format.rawValue)): \(added) new, \(summary.replaced) replaced"
    console.err(line)
    try await CLIError.asyncRuntime { try await database.close() }
    return 0
  }
}
