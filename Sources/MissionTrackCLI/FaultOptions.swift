import CommandLineSupport
import MissionTracking
import TextRules
import TraceFormats

/// The fault-injection options of `trace mutate` (and of any command that replays a trace
/// with faults): `--noise-m`, `--dropout`, `--outage`..., `--jump-m`/`--jump-every`,
/// `--duplicate`, `--reorder`, `--seed`, read into a `TraceFaults`.
struct FaultOptions {
  /// The faults given; every fault is off unless named.
  var faults: TraceFaults

  /// The options' manual text, one block per fault with the question it asks (indented for
  /// an OPTIONS section).
  static let help = """
      --noise-m SIGMA     Gaussian position noise, SIGMA metres on each of north and east.
                          Does a walk with 5 m noise still arrive exactly once, with no exit
                          on the fence edge, and does jitter stay out of the distance?
      --dropout P         Each fix is lost with probability P (0 to 1). Does arrival
                          survive a sparse trace; is a pass through the fence still crossed?
      --outage START+SECONDS
                          No fix for SECONDS from START: seconds after the first fix
                          (120+30) or an RFC 3339 time (2026-05-04T10:12:00Z+30). Repeat
                          for several. Is the gap reported, a fence passed in it crossed?
      --jump-m D --jump-every N
                          Every N-th fix jumps D metres in a random direction (an outlier).
                          Is it rejected without moving the position or firing enter/exit?
      --duplicate P       A fix is delivered twice in a row with probability P. Is it
                          merged, never counted twice? (NMEA and gpsd-JSON readers merge a
                          repeated epoch, as gpsd does; GPX keeps both points.)
      --reorder P         A fix arrives after the next one with probability P. Is the late
                          fix dropped and counted, never moving the position backwards?
      --seed N            Seed of every random choice (default 1), 0 to 2^64-1.
    """

  /// Takes the fault options from `arguments`, each value checked with its flag's name.
  /// - Throws: `CLIError.usage` for a value out of range or a bad outage.
  init(_ arguments: inout ArgumentList) throws(CLIError) {
    var faults = TraceFaults()
    faults.noiseSigmaMeters = try Self.nonNegative(&arguments, "--noise-m") ?? 0
    faults.dropoutProbability = try Self.probability(&arguments, "--dropout") ?? 0
    faults.duplicateProbability = try Self.probability(&arguments, "--duplicate") ?? 0
    faults.reorderProbability = try Self.probability(&arguments, "--reorder") ?? 0
    for text in try arguments.options("--outage") {
      do {
        faults.outages.append(try TraceOutage(parsing: text))
      } catch {
        throw .usage("--outage: \(error.reason)")
      }
    }
    let jumpMeters = try Self.nonNegative(&arguments, "--jump-m")
    let jumpEvery = try arguments.int("--jump-every", in: 1...Int.max)
    switch (jumpMeters, jumpEvery) {
    case (nil, nil): break
    case (let meters?, let every?):
      faults.jumpMeters = meters
      faults.jumpEvery = every
    case (nil, _): throw .usage("--jump-every needs --jump-m D (the jump in metres)")
    case (_, nil): throw .usage("--jump-m needs --jump-every N (every N-th fix jumps)")
    }
    if let seed = try arguments.option("--seed") {
      guard let value = UInt64(seed) else {
        throw .usage("--seed expects a whole number in 0...18446744073709551615, got '\(seed)'")
      }
      faults.seed = value
    }
    self.faults = faults
  }

  private static func probability(_ arguments: inout ArgumentList, _ name: String)
    throws(CLIError) -> Double?
  {
    guard let text = try arguments.option(name) else { return nil }
    guard let value = Double(decimalText: text), (0...1).contains(value) else {
      throw .usage("\(name) expects a probability from 0 to 1, got '\(text)'")
    }
    return value
  }

  private static func nonNegative(_ arguments: inout ArgumentList, _ name: String)
    throws(CLIError) -> Double?
  {
    guard let text = try arguments.option(name) else { return nil }
    guard let value = Double(decimalText: text), value >= 0 else {
      throw .usage("\(name) expects a number of metres >= 0, got '\(text)'")
    }
    return value
  }
}
