/// Where `missiontrack serve` sends its events besides SSE (DESIGN §9).
package struct OutboxConfiguration: Sendable {
  /// A webhook given on the command line (`serve --webhook URL`).
  package struct FlagWebhook: Sendable, Equatable {
    /// The receiver.
    package var url: String
    /// The secret (`whsec_…`) from `--webhook-secret-file`; nil keeps the stored one, or
    /// makes one for a new webhook.
    package var secret: String?

    /// A webhook flag.
    package init(url: String, secret: String?) {
      self.url = url
      self.secret = secret
    }
  }

  /// `serve --webhook`: stored as webhooks of origin `flag` (found again by URL at the next
  /// start, never added twice).
  package var webhooks: [FlagWebhook] = []
  /// `serve --mqtt mqtt://HOST:PORT`.
  package var mqttBroker: String?
  /// `serve --mqtt-prefix` (default `missiontrack`).
  package var mqttPrefix = "missiontrack"
  /// Multiplies every wait of the webhook retry schedule. 1 in production (the schedule of
  /// DESIGN §9); tests shorten it through the environment variable
  /// `MISSIONTRACK_RETRY_TIME_SCALE` (0.001 turns 5 s into 5 ms). The 10 s answer timeout
  /// is not scaled.
  package var retryTimeScale: Double = 1
  /// How often the outbox is read for events another process wrote (the engine's own
  /// events wake it at once).
  package var pollIntervalSeconds: Double = 0.2
  /// Where the outbox's reports go, one line each (a failed webhook's refused record, a
  /// store error, a secret made for a new webhook): `serve` writes them to standard error
  /// through its console, which never traps on a closed or full stream. None by default.
  package var report: @Sendable (String) -> Void = { _ in }

  /// No webhook flag, no MQTT.
  package init() {}

  /// Reports `text` as one line.
  func log(_ text: String) { report(MissionService.oneLine(text)) }
}
