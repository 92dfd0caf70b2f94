extension MapPage {
  /// The page's style sheet (`text/css`).
  static let style = #"""
    * { box-sizing: border-box; }
    html, body { margin: 0; height: 100%; }
    body {
      font-family: "DejaVu Sans", Verdana, Helvetica, Arial, sans-serif;
      font-size: 13px; color: #1a1a1a; background: #e9e9e4;
      display: flex; flex-direction: column;
    }
    header {
      display: flex; flex-wrap: wrap; align-items: center; gap: 6px 24px;
      padding: 8px 14px; background: #ffffff; border-bottom: 1px solid #cfcfc6;
    }
    h1 { font-size: 17px; margin: 0; white-space: nowrap; }
    h1 .subtitle { font-weight: normal; color: #666666; }
    h2 { font-size: 14px; margin: 0 0 6px; }
    .status { display: flex; flex-wrap: wrap; gap: 4px 18px; margin: 0; }
    .status .key { color: #666666; }
    .status .problem { color: #D55E00; font-weight: bold; }
    .status .value { font-weight: bold; }
    #source-status {
      display: inline-block; max-width: 30em; overflow: hidden; text-overflow: ellipsis;
      white-space: nowrap; vertical-align: bottom;
    }
    .status.live-reconnecting #connection, .status.live-closed #connection,
    .status.source-disconnected #source-status, .status.source-reconnecting #source-status,
    .status.source-no_fix #source-status, .status.source-silent #source-status,
    .status.stale #fix-age { color: #D55E00; }
    .status.live-connected #connection, .status.source-connected #source-status { color: #007a5a; }
    main {
      flex: 1; display: flex; gap: 12px; padding: 12px; min-height: 0;
    }
    #map-wrap {
      flex: 1; position: relative; min-width: 0; min-height: 360px;
      background: #f5f4ef; border: 1px solid #8a8a80; box-shadow: 0 1px 4px rgba(0, 0, 0, .25);
    }
    #map { position: absolute; left: 0; top: 0; width: 100%; height: 100%; display: block; overflow: hidden; }
    .map-note {
      position: absolute; left: 50%; top: 40%; transform: translate(-50%, -50%); margin: 0;
      padding: 8px 12px; background: rgba(255, 255, 255, .9); color: #444444; font-size: 15px;
    }
    aside {
      width: 340px; flex: none; display: flex; flex-direction: column; gap: 12px;
      overflow-y: auto; min-height: 0;
    }
    .panel { background: #ffffff; box-shadow: 0 1px 4px rgba(0, 0, 0, .25); padding: 10px 12px; }
    .facts { display: grid; grid-template-columns: 78px 1fr; gap: 2px 8px; margin: 0; }
    .facts dt { color: #666666; }
    .facts dd { margin: 0; }
    ul.missions, ul.events, ul.legend { list-style: none; margin: 0; padding: 0; }
    .missions { max-height: 34vh; overflow-y: auto; }
    .mission { padding: 5px 4px 5px 8px; border-left: 3px solid transparent; border-top: 1px solid #eeeeea; }
    .mission:first-child { border-top: none; }
    .mission.active { border-left-color: #009E73; background: #eef7f3; }
    .mission-head { display: flex; gap: 8px; align-items: baseline; }
    .mission-id { font-weight: bold; }
    .mission-state { color: #666666; font-size: 12px; }
    .mission-distance { margin-left: auto; font-variant-numeric: tabular-nums; }
    .mission-title { margin-top: 1px; }
    .mission-facts { color: #555555; font-size: 12px; }
    .mission.state-completed, .mission.state-cancelled, .mission.state-expired { color: #888888; }
    .events { max-height: 36vh; overflow-y: auto; }
    .event { display: flex; align-items: center; gap: 6px; padding: 2px 0; font-size: 12px; }
    .event-time { font-variant-numeric: tabular-nums; color: #444444; }
    .event-text { flex: 1; min-width: 0; overflow-wrap: anywhere; }
    .event-mission { color: #666666; }
    .event.type-state .event-text { font-weight: bold; }
    .empty { color: #666666; font-style: italic; }
    .icon { flex: none; display: inline-block; vertical-align: middle; }
    .legend-entry { display: flex; align-items: center; gap: 8px; padding: 1px 0; }
    .note { color: #666666; font-size: 11px; margin: 8px 0 0; }
    @media (max-width: 820px) {
      main { flex-direction: column; }
      #map-wrap { flex: none; height: 62vh; }
      aside { width: auto; overflow: visible; }
      .missions, .events { max-height: none; }
    }
    """#
}
