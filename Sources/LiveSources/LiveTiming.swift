/// How long a live source's reader waits for what.
struct LiveTiming: Sendable {
  /// Quiet time after which held-back epochs are released.
  let epochTimeout: Duration
  /// No input for this long while connected is reported as `silent`; nil never reports.
  let silenceTimeout: Duration?
  /// The longest single wait in `poll(2)` (a bound for a reader without a wake-up pipe).
  let pollInterval: Duration

  /// Checks and keeps the settings.
  /// - Throws: `LiveSourceError.invalidConfiguration` for a negative epoch timeout or a
  ///   silence timeout that is not positive.
  init(epochTimeout: Duration, silenceTimeout: Duration?, pollInterval: Duration)
    throws(LiveSourceError)
  {
    guard epochTimeout >= .zero else {
      throw .invalidConfiguration(
        setting: "epoch timeout", value: "\(epochTimeout)", reason: "must be >= 0")
    }
    if let silenceTimeout, silenceTimeout <= .zero {
      throw .invalidConfiguration(
        setting: "silence timeout", value: "\(silenceTimeout)", reason: "must be > 0")
    }
    self.epochTimeout = epochTimeout
    self.silenceTimeout = silenceTimeout
    self.pollInterval = pollInterval
  }
}
