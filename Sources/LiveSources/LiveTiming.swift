/// How long a live source's reader waits for what.
struct LiveTiming: Sendable {
  /// Quiet time after which held-back epochs are released.
  var epochTimeout: Duration
  /// No input for this long while connected is reported as `silent`; nil never reports.
  var silenceTimeout: Duration?
  /// The longest single wait in `poll(2)` (a bound for a reader without a wake-up pipe).
  var pollInterval: Duration

  /// Checks the user-facing settings.
  /// - Throws: `LiveSourceError.invalidConfiguration` for a negative epoch timeout or a
  ///   silence timeout that is not positive.
  static func validate(epochTimeout: Duration, silenceTimeout: Duration?) throws(LiveSourceError)
  {
    guard epochTimeout >= .zero else {
      throw .invalidConfiguration(
        setting: "epoch timeout", value: "\(epochTimeout)", reason: "must be >= 0")
    }
    if let silenceTimeout, silenceTimeout <= .zero {
      throw .invalidConfiguration(
        setting: "silence timeout", value: "\(silenceTimeout)", reason: "must be > 0")
    }
  }
}
