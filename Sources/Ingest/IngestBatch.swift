/// What one ingest request says, decoded: who sent it, the secret it presents, the positions
/// in the order received and the points skipped.
///
/// Nothing here is looked up or stored: the service finds the device or worker of `identity`,
/// compares `secret` (`IngestSecret.matches`), refuses with `unknownDevice()` or
/// `wrongSecret()`, and hands `positions` to the engine.
package struct IngestBatch: Sendable {
  /// The protocol that decoded it.
  package var protocolName: IngestProtocol
  /// The sender named in the request.
  package var identity: IngestIdentity
  /// The secret presented (`IngestRequest.presentedSecret`), or nil.
  package var secret: String?
  /// The positions, in the order the request holds them (not sorted by time).
  package var positions: [IngestPosition]
  /// The points skipped, in order: a bad point in a batch does not refuse the rest.
  package var rejected: [IngestRejection]
  /// Messages or points acknowledged without being positions: an OwnTracks message of
  /// another `_type` or an empty body, an OsmAnd report without coordinates (cell or Wi-Fi
  /// only), an Overland feature that logs an app action, a waypoint or route line.
  package var ignored: Int
  /// The status for an unknown sender: Traccar's 400 for the OsmAnd query form and for
  /// OwnTracks, 404 for the Traccar Client JSON form.
  var unknownDeviceStatus: Int

  /// A batch.
  package init(
    protocolName: IngestProtocol, identity: IngestIdentity, secret: String?,
    positions: [IngestPosition] = [], rejected: [IngestRejection] = [], ignored: Int = 0,
    unknownDeviceStatus: Int = 400
  ) {
    self.protocolName = protocolName
    self.identity = identity
    self.secret = secret
    self.positions = positions
    self.rejected = rejected
    self.ignored = ignored
    self.unknownDeviceStatus = unknownDeviceStatus
  }

  /// The refusal when no registered device (or worker) is the sender: the status the
  /// protocol's client expects (Traccar's 400 or 404; 401 for Overland, whose device is
  /// found by its token; 404 for an unknown worker of fix lines).
  package func unknownDevice() -> IngestError {
    switch identity {
    case .device(let id):
      IngestError(
        status: unknownDeviceStatus, message: "\(protocolName.rawValue): unknown device '\(id)'")
    case .worker(let id):
      IngestError(status: 404, message: "\(protocolName.rawValue): unknown worker '\(id)'")
    case .unnamed:
      IngestError(
        status: 401, message: "\(protocolName.rawValue): no device has the secret presented")
    }
  }

  /// The refusal when the secret is missing or is not the device's: 401.
  package func wrongSecret() -> IngestError {
    IngestError(
      status: 401,
      message: secret == nil
        ? "\(protocolName.rawValue): a secret is required"
        : "\(protocolName.rawValue): wrong secret")
  }
}
