/// A raw NMEA path (tty, named pipe, file, `-`) as a `LiveEndpoint`: `SerialPort` opens and
/// reads, `NMEADecoder` decodes.
struct NMEADeviceEndpoint: LiveEndpoint {
  var path: String
  var baud: Int?

  var receiverName: String { path }
  var outageSubject: String { path }

  func open() throws(LinkOpenFailure) -> SerialPort {
    try SerialPort.open(path: path, baud: baud)
  }

  /// The path, what it is and its speed.
  func connectedDetail(for port: SerialPort) -> String {
    switch port.kind {
    case .terminal:
      let speed = port.baud.map { "\($0) baud" } ?? "a non-standard speed"
      return "\(path) at \(speed)"
    case .pipe: return "named pipe \(path)"
    case .standardInput: return "standard input"
    case .other: return "file \(path)"
    }
  }

  func openFailureDetail(_ reason: String) -> String { "\(path): \(reason)" }

  func makeDecoder() -> NMEALiveDecoder { NMEALiveDecoder(path: path) }
}
