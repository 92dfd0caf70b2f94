import CommandLineSupport
import Foundation
import MissionTracking
import TraceFormats

/// `missiontrack decode`: every fix of a trace as a JSON line, before any cleaning.
enum DecodeCommand: Command {
  static let name = "decode"
  static let summary = "Print every fix decoded from a trace (NMEA, gpsd JSON, GPX)"
  static let help = """
    NAME
      missiontrack decode - look inside a recorded trace

    SYNOPSIS
      missiontrack decode TRACE [--date YYYY-MM-DD] [--rollover-after DATE] [--strict]

    DESCRIPTION
      Reads TRACE (a file, a named pipe, a tty, or - for standard input), detects its
      format from content (NMEA 0183, gpsd JSON from gpspipe -w, GPX) and prints every
      decoded fix before any cleaning, one JSON object per line:
        {"time","lat","lon","alt_m","mode","eph_m","speed_mps","course_deg","source","kind"}
      Absent values are omitted. time is RFC 3339 UTC; mode is 2 (2D) or 3 (3D); eph_m is
      the horizontal accuracy in metres. All NMEA sentences of one epoch (same time of day)
      are one fix. GPX points without <time> (planned routes, saved tracks) are printed too,
      without "time", and so are waypoints. kind tells a GPX point that is not a track point:
      "waypoint" for a <wpt>, "route" for an <rtept>; track points and NMEA or gpsd fixes
      have none. A summary goes to standard error: records read, fixes, untimed points,
      skipped by reason.

    OPTIONS
      --date YYYY-MM-DD   UTC date for NMEA logs without any RMC/ZDA date (GGA/GLL only).
                          Without it, such fixes wait for the first date in the log and are
                          back-filled, or are dropped as "no date" if none comes.
      --rollover-after DATE
                          GPS week rollover (YYYY-MM-DD): an NMEA date before DATE moves
                          forward by whole 1024-week eras until it is on or after DATE, for
                          a receiver with the 10-bit week bug that reports 1999 for 2019.
                          2017-01-01 is gpsd 3.22's rule. Without it dates are kept as
                          written (live sources correct to within 512 weeks of the clock).
                          The summary counts "GPS week rollover corrected" fixes.
      --strict            Stop at the first bad record (bad checksum, malformed field,
                          non-NMEA line) with its file and line, exit status 1.

    EXIT STATUS
      0 success, 1 unreadable trace or a bad record with --strict, 64 usage error.

    EXAMPLES
      missiontrack decode drive.nmea
      gpspipe -w -n 100 | missiontrack decode -
      missiontrack decode backfill.nmea --date 2019-03-08
      missiontrack decode old-receiver.nmea --rollover-after 2017-01-01
    """

  static func run(_ arguments: inout ArgumentList, console: Console) async throws -> Int32 {
    let strict = arguments.flag("--strict")
    let fallbackDate = try arguments.day("--date")
    let rollover = try arguments.day("--rollover-after").map(NMEAWeekRollover.init(pivot:))
    let paths = try arguments.positionals()
    guard paths.count == 1, let path = paths.first else {
      throw CLIError.usage(paths.isEmpty ? "which TRACE? (a path or -)" : "one TRACE only")
    }
    do {
      let reader = try TraceReader(
        path: path, strict: strict, fallbackDate: fallbackDate, rollover: rollover)
      let statistics = try reader.forEachRecordBatch { records in
        for record in records { console.out(FixJSONLinesWriter.line(for: record)) }
      }
      console.flush()
      console.err(summary(statistics, format: reader.format))
    } catch let error as TraceError {
      throw CLIError.failure(error.description)
    }
    return 0
  }

  /// `nmea: 2548 records, 453 fixes, skipped 1646 (ignored sentence type 1644, no fix 2)`.
  static func summary(_ statistics: TraceStatistics, format: TraceFormat?) -> String {
    var text = "\(format?.rawValue ?? "empty"): \(statistics.recordsRead) records, "
    text += "\(statistics.fixes) fixes"
    if statistics.untimedPoints > 0 { text += ", \(statistics.untimedPoints) untimed points" }
    if statistics.skippedTotal > 0 {
      let reasons = statistics.skipped.sorted {
        $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key
      }
      text += ", skipped \(statistics.skippedTotal) ("
      text += reasons.map { "\($0.key) \($0.value)" }.joined(separator: ", ") + ")"
    }
    if !statistics.warnings.isEmpty {
      let warnings = statistics.warnings.sorted { $0.key < $1.key }
      text += "; warnings: " + warnings.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
    }
    return text
  }
}
