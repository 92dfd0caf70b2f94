import CommandLineSupport
import LiveSources
import MissionTracking

/// The live-source flags `track` and `serve` share: gpsd (the default) or an NMEA device.
struct LiveSourceOptions {
  /// The manual text for these flags.
  static let help = """
      --gpsd HOST:PORT       gpsd to read from (default localhost:2947).
      --device PATH          Ask gpsd for this receiver only.
      --nmea PATH            Read NMEA 0183 from a serial device, a named pipe, or - for
                             standard input, instead of gpsd.
      --baud N               Serial speed for --nmea on a tty (4800 ... 921600; default:
                             leave the device's setting).
      --silence S            Report a 'source' event 'silent' when the source is connected
                             but sends nothing for S seconds (default 5), and 'connected'
                             when it speaks again.
    """

  var gpsd: String?
  var device: String?
  var nmea: String?
  var baud: Int?
  var silence: Double

  /// Takes the flags from `arguments`.
  init(_ arguments: inout ArgumentList) throws {
    gpsd = try arguments.option("--gpsd")
    device = try arguments.option("--device")
    nmea = try arguments.option("--nmea")
    baud = try arguments.int("--baud")
    silence = try arguments.double("--silence", in: 0.001...86_400) ?? 5
  }

  /// Whether any live-source flag was given.
  var isGiven: Bool { gpsd != nil || device != nil || nmea != nil || baud != nil }

  /// What the flags name, for status output: (`gpsd` or `nmea`, the address).
  var description: (kind: String, detail: String) {
    if let nmea { return ("nmea", nmea) }
    return ("gpsd", gpsd ?? "localhost:\(GPSDFixSource.defaultPort)")
  }

  /// The source the flags name (nothing is opened until it is iterated); with
  /// `retryingUnusable`, a receiver that cannot be used (a directory) is retried for ever
  /// instead of failing (`serve`).
  /// - Throws: `CLIError.usage` for flags that exclude each other or a bad value.
  func source(retryingUnusable: Bool = false) throws -> any FixSource {
    var retryPolicy = RetryPolicy.standard
    retryPolicy.retriesUnusableReceivers = retryingUnusable
    if nmea != nil && (gpsd != nil || device != nil) {
      throw CLIError.usage("--nmea and --gpsd/--device exclude each other")
    }
    if baud != nil && nmea == nil { throw CLIError.usage("--baud goes with --nmea") }
    do {
      if let nmea {
        return try NMEADeviceSource(
          path: nmea, baud: baud, retryPolicy: retryPolicy, silenceTimeout: .seconds(silence))
      }
      return try GPSDFixSource(
        endpoint: gpsd ?? "localhost:\(GPSDFixSource.defaultPort)", device: device,
        retryPolicy: retryPolicy, silenceTimeout: .seconds(silence))
    } catch {
      throw CLIError.usage("\(error)")
    }
  }
}
