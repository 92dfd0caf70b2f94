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
/// The map is SVG built by the script in the report's projection and look: the azimuthal
/// equidistant projection about the mission point on the sphere of 6,371,008.8 m
/// (`LocalProjection`, ported formula for formula), one scale for both axes fitted like
/// `MapFrame`, the 1-2-5 `ScaleBar`, and the colours, fence style and markers of
/// `ReportRenderer` and `ReportMarker`.
enum MapPage {
  /// The page's HTML document (`text/html`); it loads `/map.css` and `/map.js`.
  static let html = #"""
    <!DOCTYPE html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>MissionTrack live map</title>
    <link rel="stylesheet" href="/map.css">
    <script src="/map.js" defer></script>
    </head>
    <body>
    <header>
    <h1>MissionTrack <span class="subtitle">live map</span></h1>
    <div id="status" class="status" data-connection="connecting" data-source-status="unknown" role="status" aria-live="polite">
    <span class="status-item"><span class="key">Live</span> <span id="connection" class="value">connecting</span></span>
    <span class="status-item"><span class="key">Source</span> <span id="source-status" class="value">unknown</span></span>
    <span class="status-item"><span class="key">Last fix</span> <span id="fix-age" class="value">none</span></span>
    <span class="status-item"><span class="key">Active</span> <span id="active-mission" class="value">none</span></span>
    <span class="status-item"><span class="key">Fence</span> <span id="fence-state" class="value">unknown</span></span>
    <span id="problem" class="status-item problem" hidden></span>
    </div>
    </header>
    <main>
    <div id="map-wrap">
    <svg id="map" class="map" role="img" aria-labelledby="map-title" font-family="DejaVu Sans, Verdana, Helvetica, Arial, sans-serif"><title id="map-title">Map of the missions near the worker</title></svg>
    <p id="map-note" class="map-note" hidden></p>
    </div>
    <aside>
    <section id="worker-panel" class="panel">
    <h2>Worker</h2>
    <dl id="worker-facts" class="facts"><dt>Position</dt><dd id="worker-position">unknown</dd><dt>To mission</dt><dd id="worker-distance">-</dd><dt>Travelled</dt><dd id="worker-travelled">-</dd><dt>Fixes</dt><dd id="worker-fixes">0</dd></dl>
    </section>
    <section class="panel">
    <h2 id="missions-heading">Missions</h2>
    <ul id="missions" class="missions"></ul>
    </section>
    <section class="panel">
    <h2>Events</h2>
    <ul id="events" class="events"></ul>
    </section>
    <section class="panel">
    <h2>Legend</h2>
    <ul id="legend" class="legend"></ul>
    <p class="note">Azimuthal equidistant projection about the map centre, north up. Times are UTC.</p>
    </section>
    </aside>
    </main>
    </body>
    </html>
    """#
}
