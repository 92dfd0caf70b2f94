import CommandLineSupport
import Foundation
import MissionTracking
import TraceFormats

/// `missiontrack trace mutate IN -o OUT [faults]`: a copy of a trace with seeded,
/// repeatable faults, in the same format.
enum TraceMutateCommand: Command {
  static let name = "mutate"
  static let summary = "Write a copy of a trace with seeded faults (noise, dropouts, ...)"
  static let help = """
    NAME
      missiontrack trace mutate - inject repeatable faults into a recorded trace

    SYNOPSIS
      missiontrack trace mutate IN -o OUT [--noise-m SIGMA] [--dropout P]
                                [--outage START+SECONDS]... [--jump-m D --jump-every N]
                                [--duplicate P] [--reorder P] [--seed N]
                                [--to gpx|nmea|gpsd-json] [--date YYYY-MM-DD]

    DESCRIPTION
      Reads the fixes of IN (GPX, NMEA 0183 or gpsd JSON, detected from content; - for
      standard input), applies the faults below and writes them to OUT in the same format
      (or the one --to names): a GPX 1.1 track, an NMEA log (RMC, GGA, GSA and GST per fix,
      valid checksums) or gpsd TPV lines. Only the fixes are kept: other records (SKY, AIS,
      waypoints) are not. OUT is replaced atomically; - writes to standard output.

      The same IN, faults and --seed give the same bytes, every time: a failing test can
      be replayed exactly. Each fault draws from its own random stream, so adding one fault
      does not change what the others do. Faults apply to each fix in this order: outage,
      dropout, noise, jump, duplicate, reorder. A summary goes to standard error.

    FAULTS, AND THE QUESTION EACH ONE ASKS
    \(FaultOptions.help)

    OTHER OPTIONS
      -o OUT              The trace to write (required); - for standard output.
      --to FORMAT         Write gpx, nmea or gpsd-json instead of IN's format.
      --date YYYY-MM-DD   UTC date for NMEA input without any RMC/ZDA date.

    EXIT STATUS
      0 success, 1 unreadable IN or unwritable OUT, 64 usage error (a probability outside
      [0, 1], a negative SIGMA or D, a bad outage, --jump-m without --jump-every).

    EXAMPLES
      missiontrack trace mutate Traces/demo/walk.gpx -o /tmp/noisy.gpx --noise-m 5 --seed 7
      missiontrack trace mutate Traces/demo/walk.nmea -o /tmp/tunnel.nmea \\
          --outage 300+45 --outage 600+20 --dropout 0.05
      missiontrack trace mutate drive.json -o - --jump-m 400 --jump-every 50 --reorder 0.01
    """

  static func run(_ arguments: inout ArgumentList, console: Console) async throws -> Int32 {
    guard let output = try arguments.option("-o") ?? arguments.option("--output") else {
      throw CLIError.usage("-o OUT is required (- for standard output)")
    }
    let faults = try FaultOptions(&arguments).faults
    let target = try arguments.option("--to").map { text throws(CLIError) in
      guard let format = TraceFormat(rawValue: text) else {
        throw CLIError.usage("--to expects gpx, nmea or gpsd-json, got '\(text)'")
      }
      return format
    }
    let fallbackDate = try arguments.day("--date")
    let inputs = try arguments.positionals()
    guard inputs.count == 1, let input = inputs.first else {
      throw CLIError.usage(inputs.isEmpty ? "which trace IN? (a path or -)" : "one IN only")
    }

    var mutator: TraceMutator
    do {
      mutator = try TraceMutator(faults)
    } catch {
      throw CLIError.usage(error.reason)
    }
    var mutated: [Fix] = []
    let format: TraceFormat
    do {
      let reader = try TraceReader(path: input, fallbackDate: fallbackDate)
      try reader.forEachBatch { batch in
        for fix in batch { mutator.mutate(fix, into: &mutated) }
      }
      mutator.finish(into: &mutated)
      guard let detected = target ?? reader.format else {
        throw CLIError.failure("\(input): no fixes and no format to write (give --to)")
      }
      format = detected
    } catch let error as TraceError {
      throw CLIError.failure(error.description)
    }
    let text = TraceWriter.document(for: mutated, as: format)
    try OutputFile.write(text, toPath: output == "-" ? nil : output, console: console)
    console.err(summary(mutator.counts, format: format, output: output))
    return 0
  }

  /// `gpx: 1039 fixes in, 1012 out (dropout 20, outage 7, jumped 10, duplicated 5,
  /// reordered 3) -> out.gpx`.
  static func summary(_ counts: TraceMutator.Counts, format: TraceFormat, output: String)
    -> String
  {
    var parts: [String] = []
    for (name, value) in [
      ("dropout", counts.droppedOut), ("outage", counts.inOutage), ("jumped", counts.jumped),
      ("duplicated", counts.duplicated), ("reordered", counts.reordered),
    ] where value > 0 {
      parts.append("\(name) \(value)")
    }
    let detail = parts.isEmpty ? "" : " (" + parts.joined(separator: ", ") + ")"
    let destination = output == "-" ? "standard output" : output
    return "\(format.rawValue): \(counts.input) fixes in, \(counts.output) out\(detail) -> "
      + destination
  }
}
