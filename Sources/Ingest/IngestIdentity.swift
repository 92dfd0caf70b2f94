/// Whom a request names as its sender; the service looks it up among the registered devices
/// and workers.
package enum IngestIdentity: Sendable, Hashable {
  /// The device `id` of the batch's protocol: OwnTracks `USER/DEVICE`, the OsmAnd `id` or
  /// `device_id`, Overland's non-empty `device_id`.
  case device(String)
  /// The worker a fix-lines request names (`/v1/ingest/fixes?worker=W`).
  case worker(String)
  /// No name: the device is the one whose secret the request presents (Overland with empty
  /// `device_id`s), or nobody (an acknowledged OwnTracks message without identity).
  case unnamed

  /// The longest id accepted, in UTF-8 bytes: the rule of worker and mission ids.
  static let maximumBytes = 200

  /// `text` as an id: non-blank, without control characters, at most 200 UTF-8 bytes (the
  /// rules of worker ids, DESIGN §7); `field` names it in the error.
  /// - Throws: `IngestError` 400 naming the field and the value.
  static func checkedID(_ text: String, field: String, _ protocolName: IngestProtocol)
    throws(IngestError) -> String
  {
    guard !text.allSatisfy(\.isWhitespace) else {
      throw .malformed(protocolName, "\(field) is blank")
    }
    guard
      !text.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F) ~= $0.value })
    else {
      throw .malformed(protocolName, "\(field) '\(text)' contains a control character")
    }
    guard text.utf8.count <= maximumBytes else {
      throw .malformed(protocolName, "\(field) is longer than \(maximumBytes) bytes")
    }
    return text
  }
}
