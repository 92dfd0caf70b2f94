/// The protocols `/v1/ingest/…` speaks, by the names devices are registered with
/// (`PUT /v1/workers/{id}` `devices[].protocol`) and that decoded fixes carry as `source`.
///
/// GPSLogger has no protocol of its own here: its custom URL is pointed at the OsmAnd
/// endpoint and speaks that protocol.
package enum IngestProtocol: String, Sendable, Hashable, CaseIterable {
  /// OwnTracks in HTTP mode: `POST /v1/ingest/owntracks`.
  case ownTracks = "owntracks"
  /// OsmAnd, Traccar Client and GPSLogger's custom URL: `GET|POST /v1/ingest/osmand`.
  case osmAnd = "osmand"
  /// Overland (iOS) GeoJSON batches: `POST /v1/ingest/overland`.
  case overland
  /// Our own fix JSON lines, the `missiontrack decode` schema: `POST /v1/ingest/fixes`.
  case native

  /// Decodes `request` with this protocol's decoder.
  /// - Throws: `IngestError` with the HTTP status this protocol's client expects.
  package func decode(_ request: IngestRequest) throws(IngestError) -> IngestBatch {
    switch self {
    case .ownTracks: try OwnTracksDecoder.decode(request)
    case .osmAnd: try OsmAndDecoder.decode(request)
    case .overland: try OverlandDecoder.decode(request)
    case .native: try FixLinesDecoder.decode(request)
    }
  }
}
