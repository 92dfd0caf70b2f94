/// A phone or tracker registered to a worker: its positions arrive through
/// `/v1/ingest/{protocol}` and feed that worker (DESIGN §8).
public struct WorkerDevice: Sendable, Hashable {
  /// The protocol a device speaks.
  public enum IngestProtocol: String, Sendable, Hashable, CaseIterable {
    /// OwnTracks in HTTP mode.
    case owntracks
    /// OsmAnd's and Traccar Client's query, form and JSON forms.
    case osmand
    /// Overland (iOS) GeoJSON batches.
    case overland
    /// GPSLogger's custom URL (the OsmAnd form).
    case gpslogger
    /// MissionTrack's own fix JSON lines (`missiontrack decode`'s schema).
    case native
  }

  /// The protocol the device speaks.
  public var ingestProtocol: IngestProtocol
  /// The device's id within its protocol (OwnTracks: `USER/DEVICE`).
  public var deviceID: String
  /// The shared secret the device presents; nil accepts it without one, on a loopback listen
  /// only.
  public var secret: String?

  /// Creates a device registration.
  public init(ingestProtocol: IngestProtocol, deviceID: String, secret: String? = nil) {
    self.ingestProtocol = ingestProtocol
    self.deviceID = deviceID
    self.secret = secret
  }
}
