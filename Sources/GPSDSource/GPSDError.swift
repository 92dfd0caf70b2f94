/// Errors thrown by `GPSDSource`.
public enum GPSDError: Error, Sendable, Equatable, CustomStringConvertible {
  /// A configuration value out of range: which setting, the bad value, and why.
  case invalidConfiguration(setting: String, value: String, reason: String)
  /// The retry policy's attempt limit was reached without reaching gpsd.
  ///
  /// `reason` is libgps's explanation of the last failure, e.g. `can't connect to host/port
  /// pair`.
  case unreachable(host: String, port: Int, attempts: Int, reason: String)

  /// One line that names the setting or the gpsd endpoint.
  public var description: String {
    switch self {
    case .invalidConfiguration(let setting, let value, let reason):
      "invalid \(setting) '\(value)': \(reason)"
    case .unreachable(let host, let port, let attempts, let reason):
      "gpsd at \(GPSDFixSource.endpointText(host: host, port: port)) unreachable after "
        + "\(attempts) attempt\(attempts == 1 ? "" : "s"): \(reason)"
    }
  }
}
