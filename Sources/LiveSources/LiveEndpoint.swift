/// What a live source connects to, for the shared reader loop (`LiveSession`): how to open a
/// link, how to decode it, and how to name the receiver in statuses and errors.
protocol LiveEndpoint: Sendable {
  /// The connection this endpoint opens.
  associatedtype Link: LiveLink
  /// The decoder for one connection's bytes.
  associatedtype Decoder: LiveDecoder

  /// The receiver in messages: `gpsd at 127.0.0.1:2947`, `/dev/ttyUSB0`.
  var receiverName: String { get }
  /// What was unavailable during an outage, for gap details: `gpsd`, a path.
  var outageSubject: String { get }
  /// Opens a link (blocking briefly; the reader thread calls it).
  func open() throws(LinkOpenFailure) -> Link
  /// The `connected` detail for a fresh link.
  func connectedDetail(for link: Link) -> String
  /// The `disconnected` detail when an attempt to open fails with `reason`.
  func openFailureDetail(_ reason: String) -> String
  /// A decoder for one connection.
  func makeDecoder() -> Decoder
}
