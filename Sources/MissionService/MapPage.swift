import MissionTracking

/// The live map page of `missiontrack serve`: `GET /` (`html`), `GET /map.js` (`script`) and
/// `GET /map.css` (`style`).
///
/// The page needs nothing but the service: it is served under
/// `Content-Security-Policy: default-src 'self'`, so it has no inline script or style, no
/// `style` attributes, no tiles, fonts or scripts from elsewhere, and works offline. The script
/// asks the JSON API (`/v1/status`, `/v1/missions…`, `/v1/missions/{id}`, its `track` as
/// GeoJSON and its `events`) and follows `/v1/events` (Server-Sent Events) to show:
///
/// - the status: the live connection, the source's state and the age of the last fix, the
///   active mission and its fence state (`#status`, with `data-source-status`,
///   `data-active-mission`, `data-fix-age`);
/// - the missions near the worker (around the worker's last position, else around the active
///   mission, else the first page of all missions) as a list (`#missions li[data-id]`) and as
///   markers with their fences (`.mission-marker[data-id]`);
/// - the active mission's geofence (`#fence`) and exit margin (`#exit-margin`, radius plus
///   max(20 m, 20 % of the radius), as `Geofence`), its mission point, the delivered track
///   (`#track`, loaded as GeoJSON, then extended by `fix` events), the fence events on it and
///   the worker's position (`#worker`, with `data-lat`, `data-lon` and `data-time`);
/// - the last events (`#events li[data-type]`), a run of fixes collapsed into one row;
/// - a scale bar (`#scale-bar`, `data-meters`, `data-px`) and a north arrow.
///
/// The map is SVG built by the script in the report's projection and look. The geometry comes
/// from the service (`GET /map.json`, `MapPageGeometry`): the points in the azimuthal
/// equidistant projection about the mission point (`LocalProjection`), fitted at one scale for
/// both axes (`MapFrame`), the fence and its exit ring, the 1-2-5 `ScaleBar`; the script draws
/// them with the colours, fence style and markers of `ReportRenderer` and `ReportMarker`.
///
/// The files are `MapPage/index.html`, `map.js` and `map.css`, embedded in the binary by
/// SwiftPM (`.embedInCode`, as `PackageResources`). The event types the page listens for are
/// `TrackingEvent.types`, written into the HTML as `data-event-types` when it is served.
enum MapPage {
  /// The page's HTML document (`text/html`), `MapPage/index.html` with the event types; it
  /// loads `/map.css` and `/map.js`.
  static let html = String(decoding: PackageResources.index_html, as: UTF8.self)
    .replacingOccurrences(
      of: eventTypesPlaceholder, with: TrackingEvent.types.joined(separator: " "))

  /// The page's script (`text/javascript`), `MapPage/map.js`, also run as the dedicated worker
  /// that holds the page's `EventSource` (see its opening comment).
  static let script = String(decoding: PackageResources.map_js, as: UTF8.self)

  /// The page's style sheet (`text/css`), `MapPage/map.css`.
  static let style = String(decoding: PackageResources.map_css, as: UTF8.self)

  /// What `index.html` holds where the event types go.
  static let eventTypesPlaceholder = "EVENT-TYPES"
}
