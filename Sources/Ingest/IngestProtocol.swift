import MissionTracking

/// The protocols `/v1/ingest/…` speaks: the one list of MissionTracking's
/// `WorkerDevice.IngestProtocol`, the names devices are registered with
/// (`PUT /v1/workers/{id}` `devices[].protocol`) and that decoded fixes carry as `source`.
package typealias IngestProtocol = WorkerDevice.IngestProtocol

extension WorkerDevice.IngestProtocol {
  /// Decodes `request` with this protocol's decoder. GPSLogger has no protocol of its own:
  /// its custom URL is pointed at the OsmAnd endpoint and speaks that protocol.
  /// - Throws: `IngestError` with the HTTP status this protocol's client expects.
  package func decode(_ request: IngestRequest) throws(IngestError) -> IngestBatch {
    switch self {
    case .owntracks: try OwnTracksDecoder.decode(request)
    case .osmand, .gpslogger: try OsmAndDecoder.decode(request)
    case .overland: try OverlandDecoder.decode(request)
    case .native: try FixLinesDecoder.decode(request)
    }
  }
}
