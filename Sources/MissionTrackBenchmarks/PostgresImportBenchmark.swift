import CommandLineSupport
import Foundation
import MissionFiles
import MissionStore
import PostgresStore
import TextRules

/// `missiontrack-bench pg-import`: a large mission file imported into PostgreSQL with
/// `COPY` (issue 28's target: 1,000,000 missions in at most 15 s), beside the same records
/// imported into a new SQLite file in the same run.
enum PostgresImportBenchmark: Benchmark {
  static let name = "pg-import"
  static let summary = "bulk import into PostgreSQL (COPY) beside SQLite"
  static let help = """
    NAME
      missiontrack-bench pg-import - measure a bulk import into PostgreSQL

    SYNOPSIS
      missiontrack-bench pg-import --missions M.csv --db postgresql://USER@HOST:PORT/DB

    DESCRIPTION
      Reads M.csv (as Tools/gen-missions writes it), then imports it into the database
      --db names, which must hold no missions (the schema is created when missing): its
      records, validated on every core while earlier ones stream to one COPY into a
      temporary table, then one INSERT … SELECT, in one transaction; into this empty store
      the GiST and other non-unique indexes are built once after the insert. Then imports the same file into a new SQLite database in a
      temporary directory, for comparison. Target: 1,000,000 missions in <= 15 s.
      Tools/bench-postgres-import starts a private PostgreSQL and runs this.

      Prints one JSON object on standard output and a table on standard error.

    OPTIONS
      --missions PATH   The mission file (CSV, JSON or GeoJSON).
      --db URI          The PostgreSQL database (a libpq URI).
    """

  static func run(_ arguments: inout ArgumentList, console: Console) async throws -> Int32 {
    guard let path = try arguments.option("--missions") else {
      throw CLIError.usage("--missions PATH is required")
    }
    guard let uri = try arguments.option("--db") else {
      throw CLIError.usage("--db postgresql://… is required")
    }
    try arguments.finish()
    let clock = ContinuousClock()
    let url = URL(fileURLWithPath: path)
    let readStart = clock.now
    let bytes = try InputFile.bytes(atPath: path)
    let format = MissionFileFormat(fileName: url.lastPathComponent, bytes: bytes) ?? .csv
    let readSeconds = seconds(clock.now - readStart)

    let database = try PostgresDatabase(uri: uri)
    let importStart = clock.now
    // Validation included: a large CSV is validated while it streams to COPY.
    let summary = try database.importMissions(
      bytes, format: format, fileName: url.lastPathComponent)
    let importSeconds = seconds(clock.now - importStart)

    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("pg-import-bench-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let sqlite = try MissionDatabase(path: directory.appendingPathComponent("b.sqlite").path)
    let sqliteStart = clock.now
    try sqlite.importMissions(bytes, format: format, fileName: url.lastPathComponent)
    let sqliteSeconds = seconds(clock.now - sqliteStart)
    try sqlite.close()

    var json = JSONObjectWriter()
    json.add("benchmark", name)
    json.add("missions", summary.imported)
    json.add("load_average_1m", NearbyBenchmark.loadAverage())
    json.add("read_s", readSeconds)
    json.add("postgres_import_s", importSeconds)
    json.add("postgres_read_and_import_s", readSeconds + importSeconds)
    json.add("import_target_s", 15.0)
    json.add("sqlite_import_s", sqliteSeconds)
    console.err(
      "bulk import, \(summary.imported) missions, load "
        + NearbyBenchmark.fixed(NearbyBenchmark.loadAverage(), 1) + ":")
    console.err("  read the file                   \(NearbyBenchmark.fixed(readSeconds, 2)) s")
    console.err(
      "  PostgreSQL validate, COPY + INSERT \(NearbyBenchmark.fixed(importSeconds, 2)) s"
        + "   target 15 s")
    console.err(
      "  SQLite import (read included)   \(NearbyBenchmark.fixed(sqliteSeconds, 2)) s")
    console.out(json.result)
    return 0
  }

  private static func seconds(_ duration: Duration) -> Double {
    let (whole, fraction) = duration.components
    return Double(whole) + Double(fraction) * 1e-18
  }
}
