import MissionTracking

/// Where everything goes on the report map: computed once, then drawn.
struct ReportMapLayout: Sendable {
  /// A fence event with its marker and page position.
  struct PlacedEvent: Sendable {
    var event: TrackingEvent
    var marker: ReportMarker
    var point: PlanePoint
  }

  /// Metres-to-pixels placement.
  var frame: MapFrame
  /// The page position of every delivered fix, in track order.
  var fixPoints: [PlanePoint]
  /// Fix index ranges without a time gap.
  var segmentRanges: [Range<Int>]
  /// The drawn polyline points of each segment (thinned).
  var drawnSegments: [[PlanePoint]]
  /// The thinning spacing used, in pixels.
  var thinningSpacingPixels: Double
  /// The mission point on the page.
  var missionPoint: PlanePoint
  /// The scale bar.
  var scaleBar: ScaleBar
  /// Fence events with positions (events outside the track's time are put at its ends).
  var events: [PlacedEvent]
}
