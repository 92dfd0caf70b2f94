import TextRules

/// Why an ingest request is refused, in one line, with the HTTP status its client expects
/// (Traccar's statuses where Traccar reads the protocol: an OsmAnd query from an unknown
/// device is 400, the Traccar Client JSON form 404).
package struct IngestError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The HTTP status to answer with.
  package var status: Int
  /// What is wrong, on one line, naming the protocol and the bad value.
  package var message: String

  /// An error with `status` and `message` (made one line).
  package init(status: Int, message: String) {
    self.status = status
    // A message quotes values from the request: control characters are shown escaped.
    self.message = oneLine(message, limit: 300)
  }

  /// A body or a value the protocol cannot read: 400.
  package static func malformed(_ protocolName: IngestProtocol, _ reason: String) -> IngestError {
    IngestError(status: 400, message: "\(protocolName.rawValue): \(reason)")
  }

  /// The message.
  package var description: String { message }
}
