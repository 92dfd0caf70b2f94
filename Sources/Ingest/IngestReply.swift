import TextRules

/// The reply to an accepted ingest request, exactly as each client needs it; where the
/// protocol lets a server steer the device, it asks for frequent reports while the worker's
/// mission is tracked and for few otherwise.
///
/// - OwnTracks: `200` with a JSON array (the booklet, "HTTP"). It carries one `cmd`
///   `setConfiguration` (the booklet, "JSON": `_type=cmd`, `_type=configuration`): while
///   tracked `monitoring` 2 (move mode) with `locatorInterval` 10 s; otherwise `monitoring` 1
///   (significant changes) with `locatorInterval` 900 s. Not quiet mode (-1): in HTTP mode
///   the app hears commands only in replies to its posts, so a silenced phone could never be
///   asked to report again when the next mission starts.
/// - Overland: `200` `{"result":"ok",…}` (its README, "Response"); the app reads `result`
///   and applies `set` ("Configuration by Server Response"): while tracked
///   `send_interval` 10s, `tracking_mode` standard, `desired_accuracy` 10m; otherwise 5m,
///   significant, 100m. Never `off`, for the same reason (the README warns of that dead end).
/// - OsmAnd / Traccar Client: `200` with an empty body, as Traccar answers.
/// - Fix lines: `200` `{"accepted","duplicates","untracked","rejected"}`.
package struct IngestReply: Sendable, Hashable {
  /// The HTTP status.
  package var status: Int
  /// The `Content-Type`, or nil for an empty body.
  package var contentType: String?
  /// The body.
  package var body: [UInt8]

  /// The reply acknowledging a request of `protocolName`.
  /// - Parameters:
  ///   - protocolName: The endpoint's protocol.
  ///   - tracked: Whether the sender's worker has a tracked mission now; nil when the sender
  ///     is not known (an acknowledged message naming nobody): then the reply steers
  ///     nothing (`[]`, `{"result":"ok"}`).
  ///   - outcome: The counts of a fix-lines batch (the other replies carry none).
  package init(
    acknowledging protocolName: IngestProtocol, tracked: Bool?,
    outcome: IngestOutcome = IngestOutcome()
  ) {
    status = 200
    switch protocolName {
    case .owntracks:
      contentType = "application/json"
      body = Array(Self.ownTracksBody(tracked: tracked).utf8)
    case .overland:
      contentType = "application/json"
      body = Array(Self.overlandBody(tracked: tracked).utf8)
    case .osmand, .gpslogger:
      contentType = nil
      body = []
    case .native:
      var object = JSONObjectWriter()
      object.add("accepted", outcome.accepted)
      object.add("duplicates", outcome.duplicates)
      object.add("untracked", outcome.untracked)
      object.add("rejected", outcome.rejected)
      contentType = "application/json"
      body = Array(object.result.utf8)
    }
  }

  /// Seconds between reports asked of OwnTracks while tracked, and otherwise.
  static let ownTracksInterval = (tracked: 10, untracked: 900)

  private static func ownTracksBody(tracked: Bool?) -> String {
    guard let tracked else { return "[]" }
    var configuration = JSONObjectWriter()
    configuration.add("_type", "configuration")
    configuration.add("monitoring", tracked ? 2 : 1)
    configuration.add(
      "locatorInterval", tracked ? ownTracksInterval.tracked : ownTracksInterval.untracked)
    var command = JSONObjectWriter()
    command.add("_type", "cmd")
    command.add("action", "setConfiguration")
    command.addRaw("configuration", json: configuration.result)
    return "[" + command.result + "]"
  }

  private static func overlandBody(tracked: Bool?) -> String {
    guard let tracked else { return #"{"result":"ok"}"# }
    var main = JSONObjectWriter()
    main.add("tracking_mode", tracked ? "standard" : "significant")
    main.add("desired_accuracy", tracked ? "10m" : "100m")
    var settings = JSONObjectWriter()
    settings.add("send_interval", tracked ? "10s" : "5m")
    settings.addRaw("main", json: main.result)
    var reply = JSONObjectWriter()
    reply.add("result", "ok")
    reply.addRaw("set", json: settings.result)
    return reply.result
  }
}
