/// Errors thrown by the live sources (`GPSDFixSource`, `NMEADeviceSource`): from their
/// initializers for a bad setting, and through their streams when the receiver cannot be
/// used. Each description is one line that names the setting, the endpoint or the path.
public enum LiveSourceError: Error, Sendable, Equatable, CustomStringConvertible {
  /// A configuration value out of range: which setting, the bad value, and why.
  case invalidConfiguration(setting: String, value: String, reason: String)
  /// The retry policy's attempt limit was reached without reaching the receiver.
  ///
  /// `receiver` names it (`gpsd at 127.0.0.1:2947`, a device path); `reason` explains the
  /// last failure, e.g. `can't connect to host/port pair (libgps error -6)`.
  case unreachable(receiver: String, attempts: Int, reason: String)
  /// The receiver cannot be used at all (a directory, permission denied, a failing pipe or
  /// poll); not retried. `receiver` is the path or the gpsd endpoint.
  case unusable(receiver: String, reason: String)

  /// One line that names the setting, the receiver or the path.
  public var description: String {
    switch self {
    case .invalidConfiguration(let setting, let value, let reason):
      "invalid \(setting) '\(value)': \(reason)"
    case .unreachable(let receiver, let attempts, let reason):
      "\(receiver) unreachable after \(attempts) attempt\(attempts == 1 ? "" : "s"): \(reason)"
    case .unusable(let receiver, let reason):
      "\(receiver): \(reason)"
    }
  }
}
