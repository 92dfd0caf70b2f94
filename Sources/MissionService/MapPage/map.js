'use strict';
// The live map of `missiontrack serve`. Everything is drawn here, from the service's own
// JSON and Server-Sent Events: no tiles, no fonts, no other origin (the page runs under
// `Content-Security-Policy: default-src 'self'`, so no inline style either; shapes get SVG
// presentation attributes, HTML gets classes).

// In a dedicated worker (this same file, started by the page below): hold the EventSource
// and pass every event to the page. A stream that never ends, held by the page itself, counts
// as a pending fetch forever and so freezes headless Chromium's virtual time
// (--virtual-time-budget); held by a worker it does not. Reconnection with Last-Event-ID is
// EventSource's own. The page tells it the event types to listen for.
if (typeof document === 'undefined') {
  self.onmessage = function (start) {
    if (typeof EventSource === 'undefined') {
      self.postMessage({ kind: 'unsupported' });
      return;
    }
    var source = new EventSource(start.data.url);
    source.onopen = function () { self.postMessage({ kind: 'open' }); };
    source.onerror = function () {
      self.postMessage({ kind: 'error', closed: source.readyState === EventSource.CLOSED });
    };
    start.data.types.forEach(function (type) {
      source.addEventListener(type, function (message) {
        self.postMessage({ kind: 'event', type: type, data: message.data, lastEventId: message.lastEventId });
      });
    });
  };
} else (function () {
  // The service's event types (TrackingEvent.types), written into the page as it is served.
  var EVENT_TYPES = document.documentElement.dataset.eventTypes.split(' ');
  var NEARBY_RADIUS_M = 2000;
  var LIST_LIMIT = 200;
  var SHOWN_MISSIONS = 100;
  var SHOWN_EVENTS = 30;
  var SEEN_LINES = 5000;
  var REQUERY_AFTER_M = 200;
  var STATUS_EVERY_MS = 2000;
  var GAP_SECONDS = 120;

  // The report's palette (ReportRenderer, ReportMarker: Okabe-Ito).
  var COLOR = {
    land: '#f5f4ef', grid: '#e1dfd6', frame: '#8a8a80', ink: '#111111', text: '#1a1a1a',
    track: '#0072B2', fence: '#009E73', margin: '#007a5a', start: '#ffffff', end: '#111111',
    enter: '#009E73', dwell: '#E69F00', exit: '#D55E00', crossed: '#CC79A7', other: '#5b5b55'
  };

  var svg = document.getElementById('map');
  // The SVG namespace, taken from the element the HTML parser made, so that the page holds
  // no absolute URL at all.
  var SVG_NS = svg.namespaceURI;

  var state = {
    status: null,
    statusAt: 0,
    connection: 'connecting',
    activeId: null,
    focus: null,          // the mission drawn with its fence: the active one, else the last one
    fence: 'unknown',
    track: [],            // delivered fixes of the focus mission: {lat, lon, t}
    lastFix: null,        // the latest fix event of the focus mission
    fenceEvents: [],      // enter/dwell/exit/crossed of the focus mission's tracking
    missions: [],         // the listed missions, in list order
    workers: [],          // every worker (GET /v1/workers), by id
    mapWorkers: [],       // the workers with a tracked mission, as /map.json drew them
    listMode: 'none',     // 'worker', 'mission' or 'all'
    queryCenter: null,
    events: [],           // newest first: {type, json, seq, count, text}
    seen: new Set(),      // the last SEEN_LINES event lines listed, against duplicates
    seenOrder: [],
    loads: 0,             // focus loads in flight: live events wait in `queue` meanwhile
    queue: [],
    querying: false,
    requery: false
  };

  // ---- text, as ReportRenderer+Text ----

  function distanceText(m) {
    if (typeof m !== 'number' || !isFinite(m)) return '?';
    if (m < 1000) return m.toFixed(0) + ' m';
    if (m < 10000) return (m / 1000).toFixed(2) + ' km';
    return (m / 1000).toFixed(1) + ' km';
  }
  function durationText(seconds) {
    if (typeof seconds !== 'number' || !isFinite(seconds)) return '?';
    var total = Math.round(Math.max(0, seconds));
    function join(big, bigUnit, small, smallUnit) {
      return small === 0 ? big + ' ' + bigUnit : big + ' ' + bigUnit + ' ' + small + ' ' + smallUnit;
    }
    if (total < 60) return total + ' s';
    if (total < 3600) return join(Math.floor(total / 60), 'min', total % 60, 's');
    if (total < 86400) return join(Math.floor(total / 3600), 'h', Math.floor(total / 60) % 60, 'min');
    return join(Math.floor(total / 86400), 'd', Math.floor(total / 3600) % 24, 'h');
  }
  function clockText(time) {
    return typeof time === 'string' && time.length >= 19 ? time.substr(11, 8) : '--:--:--';
  }
  function eventText(e) {
    switch (e.type) {
      case 'fix': return 'fix ' + distanceText(e.distance_m) + ' away, travelled ' + distanceText(e.travelled_m);
      case 'enter': return 'enter ' + e.fence_id + ' at ' + distanceText(e.distance_m) + (e.initial ? ' (started inside)' : '');
      case 'dwell': return 'dwell ' + durationText(e.dwell_s) + ' inside ' + e.fence_id;
      case 'exit': return 'exit ' + e.fence_id + ' at ' + distanceText(e.distance_m);
      case 'crossed': return 'crossed ' + e.fence_id + ', closest ' + distanceText(e.closest_m);
      case 'state': return 'state ' + e.from + ' \u2192 ' + e.to;
      case 'source': return 'source ' + e.status + (e.detail ? ': ' + e.detail : '');
      case 'rejected': return 'rejected ' + e.count + ' ' + e.reason;
      case 'mission_nearby': return 'nearby watch ' + e.watch_id + ' at ' + distanceText(e.distance_m);
      default: return e.type || 'event';
    }
  }
  function coordinateText(lat, lon) { return lat.toFixed(5) + ', ' + lon.toFixed(5); }

  // ---- DOM helpers ----

  function el(name, className, text) {
    var node = document.createElement(name);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function shape(name, attributes, parent) {
    var node = document.createElementNS(SVG_NS, name);
    for (var key in attributes) {
      if (attributes[key] !== undefined && attributes[key] !== null) node.setAttribute(key, String(attributes[key]));
    }
    if (parent) parent.appendChild(node);
    return node;
  }
  function n(v) { return Math.round(v * 100) / 100; }
  function setText(id, text) { document.getElementById(id).textContent = text; }

  // A point symbol of the report (ReportMarker.svg) centred at (x, y).
  function marker(kind, x, y, parent, title) {
    var g = shape('g', { 'class': 'marker ' + kind }, parent);
    if (title) shape('title', {}, g).textContent = title;
    var poly = function (points) {
      return shape('polygon', {
        points: points.map(function (p) { return n(p[0]) + ',' + n(p[1]); }).join(' '),
        fill: COLOR[kind], stroke: '#1b1b1b', 'stroke-width': 1.3, 'stroke-linejoin': 'round'
      }, g);
    };
    switch (kind) {
      case 'start':
        shape('circle', { cx: n(x), cy: n(y), r: 6, fill: COLOR.start, stroke: '#111111', 'stroke-width': 2.5 }, g);
        break;
      case 'end':
        shape('rect', { x: n(x - 6), y: n(y - 6), width: 12, height: 12, fill: COLOR.end, stroke: '#ffffff', 'stroke-width': 1.5 }, g);
        break;
      case 'enter': poly([[x, y - 9], [x + 8.5, y + 6], [x - 8.5, y + 6]]); break;
      case 'exit': poly([[x, y + 9], [x + 8.5, y - 6], [x - 8.5, y - 6]]); break;
      case 'dwell': poly([[x, y - 9], [x + 8, y], [x, y + 9], [x - 8, y]]); break;
      case 'crossed':
        var a = 7.5, b = 2.6;
        poly([[x - a, y - a + b], [x - a + b, y - a], [x, y - b], [x + a - b, y - a], [x + a, y - a + b],
          [x + b, y], [x + a, y + a - b], [x + a - b, y + a], [x, y + b], [x - a + b, y + a],
          [x - a, y + a - b], [x - b, y]]);
        break;
    }
    return g;
  }
  var MARKER_RADIUS = { start: 7, end: 7, enter: 9, dwell: 9, exit: 9, crossed: 9 };

  // The mission point: a cross with a dot (ReportRenderer.drawMissionPoint).
  function missionPoint(p, parent, title) {
    var g = shape('g', { 'class': 'mission-point' }, parent);
    shape('title', {}, g).textContent = title;
    var arms = 'M' + n(p.x - 15) + ' ' + n(p.y) + 'H' + n(p.x - 5) + 'M' + n(p.x + 5) + ' ' + n(p.y) + 'H' + n(p.x + 15)
      + 'M' + n(p.x) + ' ' + n(p.y - 15) + 'V' + n(p.y - 5) + 'M' + n(p.x) + ' ' + n(p.y + 5) + 'V' + n(p.y + 15);
    shape('path', { d: arms, stroke: '#ffffff', 'stroke-width': 3.6, 'stroke-linecap': 'round' }, g);
    shape('path', { d: arms, stroke: '#111111', 'stroke-width': 1.6 }, g);
    shape('circle', { cx: n(p.x), cy: n(p.y), r: 3.5, fill: '#111111', stroke: '#ffffff', 'stroke-width': 1 }, g);
    return g;
  }

  // A small SVG holding one icon, for the lists and the legend.
  function icon(draw) {
    var s = document.createElementNS(SVG_NS, 'svg');
    s.setAttribute('class', 'icon');
    s.setAttribute('width', '22');
    s.setAttribute('height', '18');
    s.setAttribute('viewBox', '-11 -9 22 18');
    s.setAttribute('aria-hidden', 'true');
    draw(s);
    return s;
  }

  // ---- data ----

  function getJSON(url) {
    return fetch(url, { headers: { Accept: 'application/json' }, cache: 'no-store' }).then(function (r) {
      if (!r.ok) throw new Error(url + ': HTTP ' + r.status);
      return r.json();
    });
  }
  function getText(url) {
    return fetch(url, { cache: 'no-store' }).then(function (r) {
      if (!r.ok) throw new Error(url + ': HTTP ' + r.status);
      return r.text();
    });
  }

  // Delivered fixes from the track's GeoJSON: a Feature with a LineString (times in
  // properties.coordinateProperties.times), a Point or null geometry, or a FeatureCollection
  // of such features or of Point features with properties.time.
  function readTrack(geojson) {
    var out = [];
    function position(c, time) {
      if (!c || c.length < 2) return;
      out.push({ lon: Number(c[0]), lat: Number(c[1]), t: Date.parse(time) });
    }
    function feature(f) {
      if (!f || !f.geometry) return;
      var props = f.properties || {};
      var times = (props.coordinateProperties && props.coordinateProperties.times) || [];
      if (f.geometry.type === 'LineString') {
        f.geometry.coordinates.forEach(function (c, i) { position(c, times[i]); });
      } else if (f.geometry.type === 'Point') {
        position(f.geometry.coordinates, props.time || times[0]);
      }
    }
    if (geojson && geojson.type === 'FeatureCollection') (geojson.features || []).forEach(feature);
    else feature(geojson);
    return out.filter(function (p) { return isFinite(p.lat) && isFinite(p.lon); });
  }

  // Every worker, for the worker list: its tracked mission, last fix and source.
  function refreshWorkers() {
    return getJSON('/v1/workers').then(function (body) {
      state.workers = body.workers || [];
      renderWorkers();
    }).catch(function (error) { problem(error); });
  }

  function refreshStatus() {
    refreshWorkers();
    return getJSON('/v1/status').then(function (status) {
      problem(null);
      state.status = status;
      state.statusAt = Date.now();
      var active = status.active_mission === undefined ? null : status.active_mission;
      var changed = active !== state.activeId;
      state.activeId = active;
      renderStatus();
      if (changed && active !== null) return holdingEvents(loadFocus(active)).then(loadMissions);
      if (changed) { renderStatus(); return loadMissions(); }
    }).catch(function (error) { problem(error); });
  }

  // Live events wait while the focus mission loads, so that a fix arriving after its track's
  // GeoJSON was written is added to the loaded track rather than lost (fixes the track already
  // has are recognised by their time, other events by their line).
  function holdingEvents(promise) {
    state.loads += 1;
    return promise.catch(function (error) { problem(error); }).then(function () {
      state.loads -= 1;
      if (state.loads > 0) return;
      var queued = state.queue;
      state.queue = [];
      queued.forEach(handle);
      renderAll();
      renderEvents();
    });
  }

  // The focus mission: its record, fence state, track and the fence events of its tracking.
  function loadFocus(id) {
    var path = '/v1/missions/' + encodeURIComponent(id);
    return Promise.all([
      getJSON(path),
      getJSON(path + '/track?format=geojson').catch(function () { return null; }),
      getText(path + '/events').catch(function () { return ''; })
    ]).then(function (results) {
      var detail = results[0];
      state.focus = detail.mission;
      state.fence = detail.fence || 'unknown';
      state.track = results[1] ? readTrack(results[1]) : [];
      state.fenceEvents = [];
      state.lastFix = null;
      var lines = results[2].split('\n').filter(function (line) { return line.trim() !== ''; });
      var history = [];
      lines.forEach(function (line) {
        var event;
        try { event = JSON.parse(line); } catch (e) { return; }
        noteFenceEvent(event);
        if (event.type === 'fix') state.lastFix = event;
        history.push({ event: event, line: line });
      });
      // The newest events go into the list (oldest first, so fixes collapse in order).
      var tail = history.slice(-4 * SHOWN_EVENTS);
      tail.forEach(function (item) { listEvent(item.event, item.line, null); });
      scheduleRender();
    });
  }

  function workerPosition() {
    var last = state.track.length ? state.track[state.track.length - 1] : null;
    return last ? { lat: last.lat, lon: last.lon } : null;
  }

  // Missions around the worker while a mission is tracked, else around the focus mission,
  // else the first page of all missions.
  function loadMissions() {
    if (state.querying) { state.requery = true; return Promise.resolve(); }
    state.querying = true;
    var worker = state.activeId !== null ? workerPosition() : null;
    var center = worker || (state.focus ? { lat: state.focus.lat, lon: state.focus.lon } : null);
    var url, mode;
    if (center) {
      mode = worker ? 'worker' : 'mission';
      url = '/v1/missions?lat=' + center.lat + '&lon=' + center.lon + '&radius_m=' + NEARBY_RADIUS_M + '&state=any';
    } else {
      mode = 'all';
      url = '/v1/missions?limit=' + LIST_LIMIT;
    }
    return getJSON(url).then(function (body) {
      state.missions = body.missions || [];
      state.listMode = mode;
      state.queryCenter = center;
      renderMissions();
      scheduleRender();
    }).catch(function (error) { problem(error); })
      .then(function () {
        state.querying = false;
        if (state.requery) { state.requery = false; return loadMissions(); }
      });
  }

  function noteFenceEvent(event) {
    if (event.type === 'enter' || event.type === 'dwell' || event.type === 'exit' || event.type === 'crossed') {
      event.t = Date.parse(event.time);
      state.fenceEvents.push(event);
      if (state.focus && event.fence_id === state.focus.id) {
        if (event.type === 'enter') state.fence = 'inside';
        if (event.type === 'exit') state.fence = 'outside';
      }
    }
  }

  // ---- live events ----

  // Live events from /v1/events, through a worker when there can be one (see the top of
  // this file), else straight from an EventSource here.
  function connect() {
    var url = '/v1/events';
    var receive = function (message) {
      if (state.loads > 0) state.queue.push(message);
      else handle(message);
    };
    var connection = function (open, closed) {
      state.connection = open ? 'connected' : closed ? 'closed' : 'reconnecting';
      renderStatus();
    };
    var direct = function () {
      var source = new EventSource(url);
      source.onopen = function () { connection(true, false); };
      source.onerror = function () { connection(false, source.readyState === EventSource.CLOSED); };
      EVENT_TYPES.forEach(function (type) { source.addEventListener(type, receive); });
    };
    var worker;
    try {
      worker = new Worker('/map.js');
    } catch (error) {
      return direct();
    }
    worker.onmessage = function (message) {
      var m = message.data;
      if (m.kind === 'unsupported') { worker.terminate(); direct(); }
      else if (m.kind === 'open') connection(true, false);
      else if (m.kind === 'error') connection(false, m.closed);
      else receive({ data: m.data, lastEventId: m.lastEventId });
    };
    worker.onerror = function () { worker.terminate(); direct(); };
    worker.postMessage({ url: url, types: EVENT_TYPES });
  }

  function handle(message) {
    var event;
    try { event = JSON.parse(message.data); } catch (e) { return; }
    if (!event || typeof event !== 'object') return;
    var isNew = listEvent(event, message.data, message.lastEventId || null);
    if (!isNew) return;
    var focused = state.focus && event.mission_id === state.focus.id;
    switch (event.type) {
      case 'fix':
        if (!focused) break;
        var t = Date.parse(event.time);
        var last = state.track[state.track.length - 1];
        if (!last || !(t <= last.t)) {
          state.track.push({ lat: event.lat, lon: event.lon, t: t });
        }
        state.lastFix = event;
        break;
      case 'enter': case 'dwell': case 'exit': case 'crossed':
        if (focused) noteFenceEvent(event);
        break;
      case 'state':
        state.missions.forEach(function (m) { if (m.id === event.mission_id) m.state = event.to; });
        if (focused) state.focus.state = event.to;
        if (event.to === 'active' || event.from === 'active' || event.from === 'arrived') refreshStatus();
        else if (event.to === 'accepted') refreshWorkers();
        renderMissions();
        break;
      case 'source':
        if (state.status && state.status.source) {
          state.status.source.status = event.status;
          if (event.detail !== undefined) state.status.source.detail = event.detail;
        }
        refreshStatus();
        break;
    }
    renderStatus();
    scheduleRender();
  }

  // Adds an event to the list (newest first); a run of fixes is one row that counts them.
  // Returns false when the same line was listed already (from the history or a replay).
  function listEvent(event, line, seq) {
    if (state.seen.has(line)) return false;
    state.seen.add(line);
    state.seenOrder.push(line);
    if (state.seenOrder.length > SEEN_LINES) state.seen.delete(state.seenOrder.shift());
    var head = state.events[0];
    if (event.type === 'fix' && head && head.type === 'fix' && head.event.mission_id === event.mission_id) {
      head.event = event;
      head.count += 1;
      head.seq = seq || head.seq;
    } else {
      state.events.unshift({ type: event.type, event: event, count: 1, seq: seq });
      if (state.events.length > SHOWN_EVENTS) state.events.length = SHOWN_EVENTS;
    }
    scheduleEvents();
    return true;
  }

  // ---- rendering ----

  var renderPending = false;
  function scheduleRender() {
    if (renderPending || state.loads > 0) return;
    renderPending = true;
    setTimeout(function () { renderPending = false; renderAll(); }, 30);
  }
  var eventsPending = false;
  function scheduleEvents() {
    if (eventsPending) return;
    eventsPending = true;
    setTimeout(function () { eventsPending = false; renderEvents(); }, 30);
  }

  function renderAll() {
    renderMap();
    renderWorker();
    renderStatus();
  }

  // A failed request, shown in the status bar until the next status answer.
  function problem(error) {
    var span = document.getElementById('problem');
    span.textContent = error ? String(error.message || error) : '';
    span.hidden = !error;
  }

  function note(text) {
    var p = document.getElementById('map-note');
    p.textContent = text || '';
    p.hidden = !text;
  }

  function renderStatus() {
    var box = document.getElementById('status');
    var status = state.status;
    var source = (status && status.source) || {};
    box.dataset.connection = state.connection;
    box.dataset.sourceStatus = source.status || 'unknown';
    box.dataset.activeMission = state.activeId === null ? '' : state.activeId;
    box.dataset.fence = state.fence;
    setText('connection', state.connection);
    var kind = source.kind ? source.kind + ' \u00b7 ' : '';
    setText('source-status', kind + (source.status || 'unknown') + (source.detail ? ' (' + source.detail + ')' : ''));
    document.getElementById('source-status').title = source.detail || '';
    var age = typeof source.last_fix_age_s === 'number'
      ? source.last_fix_age_s + (Date.now() - state.statusAt) / 1000 : null;
    box.dataset.fixAge = age === null ? '' : String(Math.round(age));
    setText('fix-age', age === null ? 'none' : durationText(age) + ' ago' + (source.last_fix_time ? ' (' + clockText(source.last_fix_time) + ')' : ''));
    var active = state.activeId === null ? 'none' : state.activeId + (state.focus && state.focus.id === state.activeId ? ' (' + state.focus.state + ')' : '');
    setText('active-mission', active);
    document.title = 'MissionTrack live map' + (state.activeId === null ? '' : ' \u00b7 ' + active);
    setText('fence-state', state.focus ? state.fence : '-');
    var classes = ['status', 'source-' + (source.status || 'unknown'), 'live-' + state.connection];
    if (age !== null && age > 30) classes.push('stale');
    box.className = classes.join(' ');
  }

  function renderWorker() {
    var w = workerPosition();
    setText('worker-position', w ? coordinateText(w.lat, w.lon) : 'unknown');
    var fix = state.lastFix;
    setText('worker-distance', fix && state.focus ? distanceText(fix.distance_m) + ' to ' + state.focus.id : '-');
    setText('worker-travelled', fix ? distanceText(fix.travelled_m) : '-');
    setText('worker-fixes', String(state.track.length));
  }

  function renderMissions() {
    var list = document.getElementById('missions');
    var within = 'Missions within ' + (NEARBY_RADIUS_M >= 1000 ? NEARBY_RADIUS_M / 1000 + ' km' : NEARBY_RADIUS_M + ' m');
    var heading = state.listMode === 'worker' ? within + ' of the worker'
      : state.listMode === 'mission' ? within + ' of ' + state.focus.id
        : 'Missions';
    setText('missions-heading', heading + ' (' + state.missions.length + ')');
    var items = document.createDocumentFragment();
    state.missions.slice(0, SHOWN_MISSIONS).forEach(function (m) {
      var li = el('li', 'mission state-' + m.state);
      if (state.activeId !== null && m.id === state.activeId) li.classList.add('active');
      li.dataset.id = m.id;
      li.dataset.state = m.state;
      li.dataset.lat = String(m.lat);
      li.dataset.lon = String(m.lon);
      var top = el('div', 'mission-head');
      top.appendChild(el('span', 'mission-id', m.id));
      top.appendChild(el('span', 'mission-state', m.state));
      var away = typeof m.distance_m === 'number' ? m.distance_m : null;
      if (away !== null) top.appendChild(el('span', 'mission-distance', distanceText(away)));
      li.appendChild(top);
      if (m.title) li.appendChild(el('div', 'mission-title', m.title));
      var facts = [];
      if (m.reward) facts.push([m.reward, m.currency || ''].join(' ').trim());
      if (m.address) facts.push(m.address);
      if (facts.length) li.appendChild(el('div', 'mission-facts', facts.join(' \u00b7 ')));
      items.appendChild(li);
    });
    list.replaceChildren(items);
    if (state.missions.length === 0) list.appendChild(el('li', 'empty', 'No missions here.'));
  }

  function renderEvents() {
    var list = document.getElementById('events');
    var items = document.createDocumentFragment();
    state.events.forEach(function (item) {
      var e = item.event;
      var li = el('li', 'event type-' + item.type);
      li.dataset.type = item.type;
      li.dataset.missionId = e.mission_id;
      if (e.worker_id) li.dataset.workerId = e.worker_id;
      if (item.seq) li.dataset.seq = item.seq;
      if (item.count > 1) li.dataset.count = String(item.count);
      var kind = MARKER_RADIUS[item.type] && item.type !== 'start' ? item.type : null;
      li.appendChild(icon(function (s) {
        if (kind) marker(kind, 0, 0, s).setAttribute('transform', 'scale(0.62)');
        else if (item.type === 'fix') shape('circle', { r: 3.5, fill: COLOR.track }, s);
        else shape('circle', { r: 3, fill: '#ffffff', stroke: '#666666', 'stroke-width': 1.4 }, s);
      }));
      li.appendChild(el('span', 'event-time', clockText(e.time)));
      var text = eventText(e) + (item.count > 1 ? ' (' + item.count + ' fixes)' : '');
      li.appendChild(el('span', 'event-text', text));
      if (state.focus === null || e.mission_id !== state.focus.id) li.appendChild(el('span', 'event-mission', e.mission_id));
      if (e.worker_id && e.worker_id !== 'local') li.appendChild(el('span', 'event-worker', e.worker_id));
      items.appendChild(li);
    });
    list.replaceChildren(items);
    if (state.events.length === 0) list.appendChild(el('li', 'empty', 'No events yet.'));
  }

  // Where a fence event happened: interpolated along the drawn track (page points with their
  // times) by time; a `crossed` at the point of its step nearest the fence's centre
  // (ReportRenderer.position).
  function eventPoint(event, track, center) {
    if (!track.length) return null;
    if (event.t <= track[0].t) return track[0];
    if (event.t >= track[track.length - 1].t) return track[track.length - 1];
    var low = 1, high = track.length - 1;
    while (low < high) {
      var middle = (low + high) >> 1;
      if (track[middle].t >= event.t) high = middle; else low = middle + 1;
    }
    var a = track[high - 1], b = track[high];
    if (event.type === 'crossed' && center) {
      var dx = b.x - a.x, dy = b.y - a.y, l2 = dx * dx + dy * dy;
      if (l2 <= 0) return a;
      var u = Math.min(1, Math.max(0, ((center.x - a.x) * dx + (center.y - a.y) * dy) / l2));
      return { x: a.x + dx * u, y: a.y + dy * u };
    }
    var span = track[high].t - track[high - 1].t;
    var f = span > 0 ? (event.t - track[high - 1].t) / span : 1;
    return { x: a.x + (b.x - a.x) * f, y: a.y + (b.y - a.y) * f };
  }

  // ReportRenderer.freeSpot: the point itself if free, else 24 or 36 px away.
  function freeSpot(p, radius, occupied) {
    function isFree(q) {
      return occupied.every(function (o) { return Math.hypot(q.x - o.x, q.y - o.y) >= radius + o.r - 2; });
    }
    if (isFree(p)) return p;
    var distances = [24, 36];
    for (var d = 0; d < distances.length; d++) {
      for (var step = 0; step < 8; step++) {
        var angle = Math.PI / 4 * (step - 1);
        var q = { x: p.x + distances[d] * Math.cos(angle), y: p.y + distances[d] * Math.sin(angle) };
        if (isFree(q)) return q;
      }
    }
    return p;
  }

  // The map's geometry comes from the service (GET /map.json: the projection, the frame
  // fitted to this size, the fence and its exit ring, the scale bar, the track and the
  // missions, in pixels), one request at a time; a render asked for meanwhile follows it.
  var mapLoading = false;
  var mapAgain = false;
  function renderMap() {
    if (mapLoading) { mapAgain = true; return; }
    // One viewBox unit per CSS pixel, so the scale bar's pixels are the screen's.
    var box0 = svg.getBoundingClientRect();
    var width = Math.max(Math.round(box0.width), 200);
    var height = Math.max(Math.round(box0.height), 200);
    var focus = state.focus;
    var url = '/map.json?width=' + width + '&height=' + height;
    if (focus) url += '&mission=' + encodeURIComponent(focus.id);
    var q = state.listMode === 'all' ? null : state.queryCenter;
    if (q) url += '&lat=' + q.lat + '&lon=' + q.lon + '&radius_m=' + NEARBY_RADIUS_M;
    mapLoading = true;
    return getJSON(url).then(function (map) {
      state.mapWorkers = map.workers || [];
      drawMap(map, focus, width, height);
      renderWorkers();
      requeryAround(map.worker);
    }).catch(function (error) { problem(error); }).then(function () {
      mapLoading = false;
      if (mapAgain) { mapAgain = false; renderMap(); }
    });
  }

  // While a mission is tracked, the list follows the worker: asked again around it once it is
  // REQUERY_AFTER_M from where the list was asked (the service measures it).
  function requeryAround(worker) {
    if (state.activeId === null || !worker || workerPosition() === null) return;
    if (state.listMode !== 'worker' || !(worker.from_list_center_m <= REQUERY_AFTER_M)) loadMissions();
  }

  function drawMap(map, focus, width, height) {
    svg.setAttribute('viewBox', '0 0 ' + width + ' ' + height);
    var title = svg.querySelector('title');
    svg.replaceChildren(title);
    shape('rect', { 'class': 'land', x: 0, y: 0, width: width, height: height, fill: COLOR.land }, svg);
    if (!map.center) {
      note('No missions yet: import some (POST /v1/missions or missiontrack missions import).');
      return;
    }
    note(null);
    svg.dataset.centerLat = String(map.center.lat);
    svg.dataset.centerLon = String(map.center.lon);
    svg.dataset.pxPerM = String(map.px_per_m);
    var center = map.origin;
    var worker = map.worker || null;
    var bar = map.scale_bar;
    drawGrid(center, bar.px, width, height);
    var drawn = {};
    map.missions.forEach(function (m) { drawn[m.id] = m; });

    // Other missions: their fences, lighter, a point and the id.
    var others = shape('g', { id: 'mission-markers' }, svg);
    var labels = [];
    state.missions.slice(0, SHOWN_MISSIONS).forEach(function (m) {
      var p = drawn[m.id];
      if ((focus && m.id === focus.id) || !p) return;
      var g = shape('g', { 'class': 'mission-marker state-' + m.state, 'data-id': m.id, 'data-lat': m.lat, 'data-lon': m.lon }, others);
      shape('title', {}, g).textContent = m.id + (m.title ? ': ' + m.title : '') + ' (' + m.state + ')';
      var open = m.state === 'open' || m.state === 'accepted';
      shape('circle', {
        'class': 'mission-fence', cx: n(p.x), cy: n(p.y), r: n(p.radius_px),
        fill: COLOR.fence, 'fill-opacity': open ? 0.07 : 0.03, stroke: COLOR.fence,
        'stroke-opacity': open ? 0.7 : 0.35, 'stroke-width': 1.2
      }, g);
      shape('circle', { cx: n(p.x), cy: n(p.y), r: 3, fill: open ? COLOR.other : '#b0b0a8', stroke: '#ffffff', 'stroke-width': 1 }, g);
      labels.push({ p: p, text: m.id, g: g, gap: Math.max(p.radius_px, 4) + 3 });
    });

    // The focus mission's geofence and exit ring, drawn like the report's.
    var fence = map.fence;
    if (fence) {
      shape('circle', {
        id: 'exit-margin', 'class': 'exit-margin', 'data-radius-m': fence.exit_radius_m,
        cx: n(center.x), cy: n(center.y), r: n(fence.exit_radius_px), fill: 'none',
        stroke: COLOR.margin, 'stroke-width': 1.5, 'stroke-dasharray': '7 5'
      }, svg);
      shape('circle', {
        id: 'fence', 'class': 'fence fence-' + state.fence, 'data-mission': fence.mission,
        'data-radius-m': fence.radius_m, cx: n(center.x), cy: n(center.y), r: n(fence.radius_px), fill: COLOR.fence, 'fill-opacity': 0.14,
        stroke: COLOR.fence, 'stroke-width': 2
      }, svg);
    }

    drawWorkers(map.workers || [], focus);

    // The track: gaps dotted, white casing, blue line (ReportRenderer.drawTrack).
    var track = map.track;
    var points = track;
    var trackGroup = shape('g', { id: 'track', 'class': 'track-layer', 'data-fixes': points.length, 'data-mission': focus ? focus.id : '' }, svg);
    var segments = [];
    var current = [];
    track.forEach(function (f, i) {
      if (i > 0 && f.t - track[i - 1].t > GAP_SECONDS * 1000) {
        segments.push(current);
        shape('line', {
          'class': 'gap', x1: n(points[i - 1].x), y1: n(points[i - 1].y), x2: n(points[i].x), y2: n(points[i].y),
          stroke: COLOR.track, 'stroke-width': 2, 'stroke-linecap': 'round', 'stroke-dasharray': '0.1 6'
        }, trackGroup);
        current = [];
      }
      current.push(points[i]);
    });
    if (current.length) segments.push(current);
    segments.forEach(function (segment) {
      if (segment.length === 1) {
        shape('circle', { 'class': 'track-point', cx: n(segment[0].x), cy: n(segment[0].y), r: 3, fill: COLOR.track }, trackGroup);
        return;
      }
      trackLine(segment, trackGroup, 'track', 3);
    });

    // Markers: start, fence events (moved aside when they would cover each other).
    var markers = shape('g', { id: 'event-markers' }, svg);
    var occupied = [{ x: center.x, y: center.y, r: 9 }];
    if (points.length) {
      var first = points[0];
      marker('start', first.x, first.y, markers, 'Start ' + new Date(track[0].t).toISOString().substr(11, 8));
      occupied.push({ x: first.x, y: first.y, r: MARKER_RADIUS.start });
      var lastPoint = points[points.length - 1];
      occupied.push({ x: lastPoint.x, y: lastPoint.y, r: 12 });
    }
    state.fenceEvents.forEach(function (event) {
      var c = focus && event.fence_id === focus.id ? center : drawn[event.fence_id] || center;
      var at = eventPoint(event, track, c);
      if (!at) return;
      var radius = MARKER_RADIUS[event.type];
      var shown = freeSpot(at, radius, occupied);
      occupied.push({ x: shown.x, y: shown.y, r: radius });
      if (shown.x !== at.x || shown.y !== at.y) {
        shape('path', { 'class': 'leader', d: 'M' + n(at.x) + ' ' + n(at.y) + 'L' + n(shown.x) + ' ' + n(shown.y), stroke: '#1b1b1b', 'stroke-width': 1.2 }, markers);
        shape('circle', { cx: n(at.x), cy: n(at.y), r: 2.2, fill: '#1b1b1b' }, markers);
      }
      var g = marker(event.type, shown.x, shown.y, markers, clockText(event.time) + ' ' + eventText(event));
      g.setAttribute('data-fence', event.fence_id);
    });

    // Mission ids beside their points, with the report's white halo, where they cover the
    // fewest track points, markers and other labels.
    var placed = [];
    labels.forEach(function (label) {
      var spot = placeLabel(label, points, occupied, placed, width, height);
      placed.push(spot.box);
      var t = shape('text', {
        'class': 'mission-label', x: n(spot.x), y: n(spot.y), 'text-anchor': spot.anchor,
        'font-size': 12, fill: '#333333', stroke: '#ffffff', 'stroke-width': 3.5, 'stroke-linejoin': 'round', 'paint-order': 'stroke'
      }, label.g);
      t.textContent = label.text;
    });

    if (focus) missionPoint(center, svg, 'Mission ' + focus.id + ' ' + coordinateText(focus.lat, focus.lon));

    // The worker: the report's end-of-track square, with the fix's accuracy when known.
    if (worker) {
      var wp = worker;
      var wg = shape('g', {
        id: 'worker', 'class': 'worker', 'data-lat': worker.lat, 'data-lon': worker.lon, 'data-time': worker.time
      }, svg);
      shape('title', {}, wg).textContent = 'Worker at ' + coordinateText(worker.lat, worker.lon);
      var eph = state.lastFix && typeof state.lastFix.eph_m === 'number' ? state.lastFix.eph_m : null;
      if (eph !== null && eph * map.px_per_m > 8) {
        shape('circle', { 'class': 'accuracy', cx: n(wp.x), cy: n(wp.y), r: n(eph * map.px_per_m), fill: COLOR.track, 'fill-opacity': 0.1, stroke: COLOR.track, 'stroke-opacity': 0.5, 'stroke-width': 1 }, wg);
      }
      shape('circle', { 'class': 'halo', cx: n(wp.x), cy: n(wp.y), r: 12, fill: '#ffffff', 'fill-opacity': 0.6, stroke: COLOR.end, 'stroke-width': 1.2 }, wg);
      shape('rect', { x: n(wp.x - 6), y: n(wp.y - 6), width: 12, height: 12, fill: COLOR.end, stroke: '#ffffff', 'stroke-width': 1.5 }, wg);
    }

    drawScaleBar(bar, height);
    drawNorthArrow(width);
  }

  // Page points drawn as the report draws a track (ReportRenderer.drawTrack): a white
  // casing twice the line's width under the blue line; classes `NAME-casing` and `NAME`.
  function trackLine(points, parent, name, width) {
    var list = thin(points).map(function (p) { return n(p.x) + ',' + n(p.y); }).join(' ');
    shape('polyline', {
      'class': name + '-casing', points: list, fill: 'none', stroke: '#ffffff', 'stroke-opacity': 0.8,
      'stroke-width': 2 * width, 'stroke-linejoin': 'round', 'stroke-linecap': 'round'
    }, parent);
    shape('polyline', {
      'class': name, points: list, fill: 'none', stroke: COLOR.track, 'stroke-width': width,
      'stroke-linejoin': 'round', 'stroke-linecap': 'round'
    }, parent);
  }

  // Every other worker with a tracked mission (DESIGN §7): its mission's fence and exit ring,
  // its delivered track and its last fix, labelled with its id. The focus mission's worker
  // is drawn by drawMap itself.
  function drawWorkers(workers, focus) {
    var layer = shape('g', { id: 'tracked-workers' }, svg);
    workers.forEach(function (w) {
      if (focus && w.mission === focus.id) return;
      var g = shape('g', {
        'class': 'tracked-worker fence-' + w.fence, 'data-worker': w.id, 'data-mission': w.mission,
        'data-fixes': w.track.length
      }, layer);
      shape('title', {}, g).textContent = 'Worker ' + w.id + (w.name ? ' (' + w.name + ')' : '') + ': mission ' + w.mission;
      shape('circle', {
        'class': 'worker-exit-margin', cx: n(w.fence_x), cy: n(w.fence_y), r: n(w.exit_radius_px), fill: 'none',
        stroke: COLOR.margin, 'stroke-width': 1.2, 'stroke-dasharray': '7 5'
      }, g);
      shape('circle', {
        'class': 'worker-fence', cx: n(w.fence_x), cy: n(w.fence_y), r: n(w.radius_px), fill: COLOR.fence,
        'fill-opacity': 0.12, stroke: COLOR.fence, 'stroke-width': 1.6
      }, g);
      missionPoint({ x: w.fence_x, y: w.fence_y }, g, 'Mission ' + w.mission);
      if (w.track.length > 1) trackLine(w.track, g, 'worker-track', 2.5);
      var at = w.position;
      if (at) {
        var p = shape('g', { 'class': 'worker-position', 'data-lat': at.lat, 'data-lon': at.lon, 'data-time': at.time }, g);
        shape('circle', { cx: n(at.x), cy: n(at.y), r: 10, fill: '#ffffff', 'fill-opacity': 0.6, stroke: COLOR.end, 'stroke-width': 1.2 }, p);
        shape('rect', { x: n(at.x - 5), y: n(at.y - 5), width: 10, height: 10, fill: COLOR.end, stroke: '#ffffff', 'stroke-width': 1.5 }, p);
        shape('text', {
          'class': 'worker-label', x: n(at.x + 13), y: n(at.y + 4), 'font-size': 12, fill: '#111111',
          stroke: '#ffffff', 'stroke-width': 3.5, 'stroke-linejoin': 'round', 'paint-order': 'stroke'
        }, p).textContent = w.id;
      }
    });
  }

  // The worker list: every worker, with its tracked mission, and for a tracked one its
  // fence state and distance (as the map drew them) and its last fix.
  function renderWorkers() {
    var list = document.getElementById('workers');
    var drawn = {};
    state.mapWorkers.forEach(function (w) { drawn[w.id] = w; });
    var tracked = state.workers.filter(function (w) { return w.tracked_mission !== null; }).length;
    setText('workers-heading', 'Workers (' + tracked + ' of ' + state.workers.length + ' tracked)');
    var items = document.createDocumentFragment();
    state.workers.forEach(function (w) {
      var li = el('li', 'worker-entry' + (w.tracked_mission !== null ? ' tracked' : ''));
      li.dataset.id = w.id;
      li.dataset.trackedMission = w.tracked_mission === null ? '' : w.tracked_mission;
      var top = el('div', 'worker-head');
      top.appendChild(el('span', 'worker-id', w.id));
      if (w.name) top.appendChild(el('span', 'worker-name', w.name));
      li.appendChild(top);
      var facts = [];
      if (w.tracked_mission !== null) {
        facts.push('mission ' + w.tracked_mission);
        var d = drawn[w.id];
        if (d && d.mission === w.tracked_mission) {
          li.dataset.fence = d.fence;
          if (typeof d.distance_m === 'number') li.dataset.distanceM = String(d.distance_m);
          facts.push(d.fence);
          if (typeof d.distance_m === 'number') facts.push(distanceText(d.distance_m) + ' away');
        }
      } else {
        facts.push('no mission');
      }
      if (w.source) facts.push(w.source.kind + ' ' + w.source.status);
      if (w.last_fix) facts.push('fix ' + clockText(w.last_fix.time));
      li.appendChild(el('div', 'worker-facts', facts.join(' \u00b7 ')));
      items.appendChild(li);
    });
    list.replaceChildren(items);
    if (state.workers.length === 0) list.appendChild(el('li', 'empty', 'No workers.'));
  }

  // The best of eight spots around a point for a 12 px label (a small LabelPlacer): the one
  // whose box covers the fewest track points, then markers and labels, inside the map.
  function placeLabel(label, trackPoints, occupied, placed, width, height) {
    var w = label.text.length * 12 * 0.62, g = label.gap, d = g * 0.72, p = label.p;
    var candidates = [
      [p.x + d, p.y - d, 'start'], [p.x + g + 4, p.y + 4, 'start'], [p.x - g - 4, p.y + 4, 'end'],
      [p.x - d, p.y - d, 'end'], [p.x + d, p.y + d + 10, 'start'], [p.x - d, p.y + d + 10, 'end'],
      [p.x, p.y - g - 4, 'middle'], [p.x, p.y + g + 14, 'middle']
    ];
    var best = null;
    candidates.forEach(function (c) {
      var left = c[2] === 'start' ? c[0] : c[2] === 'end' ? c[0] - w : c[0] - w / 2;
      var box = { minX: left - 2, maxX: left + w + 2, minY: c[1] - 11, maxY: c[1] + 4 };
      var cost = 0;
      if (box.minX < 4 || box.minY < 4 || box.maxX > width - 4 || box.maxY > height - 4) cost += 1000;
      trackPoints.forEach(function (q) {
        if (q.x >= box.minX && q.x <= box.maxX && q.y >= box.minY && q.y <= box.maxY) cost += 1;
      });
      occupied.forEach(function (o) {
        if (o.x + o.r > box.minX && o.x - o.r < box.maxX && o.y + o.r > box.minY && o.y - o.r < box.maxY) cost += 50;
      });
      placed.forEach(function (b) {
        if (b.maxX > box.minX && b.minX < box.maxX && b.maxY > box.minY && b.minY < box.maxY) cost += 50;
      });
      if (best === null || cost < best.cost) best = { cost: cost, x: c[0], y: c[1], anchor: c[2], box: box };
    });
    return best;
  }

  // Keeps every point at least half a pixel from the previous kept one (TrackThinner's rule
  // for the common case); the last point is always kept so the line reaches the worker.
  function thin(points) {
    if (points.length <= 2) return points;
    var kept = [points[0]];
    for (var i = 1; i < points.length - 1; i++) {
      var k = kept[kept.length - 1];
      if (Math.hypot(points[i].x - k.x, points[i].y - k.y) >= 0.5) kept.push(points[i]);
    }
    kept.push(points[points.length - 1]);
    return kept;
  }

  // Faint lines every scale-bar length east and north of the centre, drawn well beyond the
  // view so that no edge shows while the element is being resized.
  function drawGrid(origin, step, width, height) {
    if (step < 24) return;
    var over = Math.max(width, height);
    var d = '';
    for (var k = Math.ceil((-over - origin.x) / step); origin.x + k * step <= width + over; k++) {
      d += 'M' + n(origin.x + k * step) + ' ' + (-over) + 'V' + n(height + over);
    }
    for (var j = Math.ceil((-over - origin.y) / step); origin.y + j * step <= height + over; j++) {
      d += 'M' + (-over) + ' ' + n(origin.y + j * step) + 'H' + n(width + over);
    }
    shape('path', { 'class': 'grid', d: d, stroke: COLOR.grid, 'stroke-width': 1, fill: 'none' }, svg);
  }

  function drawScaleBar(bar, height) {
    var x = 16, y = height - 22, half = bar.px / 2;
    var g = shape('g', { id: 'scale-bar', 'class': 'scale-bar', 'data-meters': bar.meters, 'data-px': bar.px }, svg);
    shape('rect', { x: n(x - 8), y: n(y - 24), width: n(bar.px + 56), height: 38, rx: 4, fill: '#ffffff', 'fill-opacity': 0.85 }, g);
    shape('rect', { x: n(x), y: n(y), width: n(half), height: 6, fill: '#111111' }, g);
    shape('rect', { x: n(x + half), y: n(y), width: n(half), height: 6, fill: '#ffffff', stroke: '#111111', 'stroke-width': 1 }, g);
    shape('rect', { x: n(x), y: n(y), width: n(bar.px), height: 6, fill: 'none', stroke: '#111111', 'stroke-width': 1 }, g);
    shape('text', { x: n(x), y: n(y - 6), 'font-size': 12, fill: '#111111' }, g).textContent = '0';
    shape('text', { x: n(x + bar.px), y: n(y - 6), 'font-size': 12, 'text-anchor': 'middle', fill: '#111111' }, g).textContent = bar.label;
  }

  function drawNorthArrow(width) {
    var x = width - 30, y = 18;
    var g = shape('g', { 'class': 'north-arrow' }, svg);
    shape('title', {}, g).textContent = 'North is up';
    shape('rect', { x: x - 20, y: y - 8, width: 40, height: 60, rx: 4, fill: '#ffffff', 'fill-opacity': 0.85 }, g);
    shape('text', { x: x, y: y + 10, 'font-size': 15, 'font-weight': 'bold', 'text-anchor': 'middle', fill: '#111111' }, g).textContent = 'N';
    shape('polygon', { points: x + ',' + (y + 16) + ' ' + (x + 9) + ',' + (y + 46) + ' ' + x + ',' + (y + 39) + ' ' + (x - 9) + ',' + (y + 46), fill: '#111111' }, g);
  }

  function renderLegend() {
    var list = document.getElementById('legend');
    function entry(kind, label, draw) {
      var li = el('li', 'legend-entry');
      li.dataset.kind = kind;
      li.appendChild(icon(draw));
      li.appendChild(el('span', '', label));
      list.appendChild(li);
    }
    entry('worker', 'Worker (last delivered fix)', function (s) {
      shape('rect', { x: -6, y: -6, width: 12, height: 12, fill: COLOR.end, stroke: '#ffffff', 'stroke-width': 1.5 }, s);
    });
    entry('track', 'Track (delivered fixes)', function (s) {
      shape('path', { d: 'M-10 4L-3 -4L4 3L10 -3', fill: 'none', stroke: COLOR.track, 'stroke-width': 3, 'stroke-linejoin': 'round', 'stroke-linecap': 'round' }, s);
    });
    entry('fence', 'Geofence of the mission', function (s) {
      shape('circle', { r: 7, fill: COLOR.fence, 'fill-opacity': 0.14, stroke: COLOR.fence, 'stroke-width': 2 }, s);
    });
    entry('exit-margin', 'Exit beyond radius + max(20 m, 20 %)', function (s) {
      shape('circle', { r: 7, fill: 'none', stroke: COLOR.margin, 'stroke-width': 1.5, 'stroke-dasharray': '4 3' }, s);
    });
    entry('mission', 'Other missions and their fences', function (s) {
      shape('circle', { r: 7, fill: COLOR.fence, 'fill-opacity': 0.07, stroke: COLOR.fence, 'stroke-opacity': 0.7, 'stroke-width': 1.2 }, s);
      shape('circle', { r: 3, fill: COLOR.other, stroke: '#ffffff', 'stroke-width': 1 }, s);
    });
    [['start', 'Start (first fix)'], ['enter', 'Enter geofence'], ['dwell', 'Dwell reached'],
      ['exit', 'Exit (beyond margin)'], ['crossed', 'Crossed between fixes']].forEach(function (item) {
      entry(item[0], item[1], function (s) { marker(item[0], 0, 0, s).setAttribute('transform', 'scale(0.75)'); });
    });
  }

  // ---- start ----

  renderLegend();
  renderEvents();
  connect();
  holdingEvents(refreshStatus().then(function () {
    if (state.activeId === null) return loadMissions();
  })).then(function () { document.body.dataset.ready = 'true'; });
  setInterval(function () { refreshStatus(); }, STATUS_EVERY_MS);
  setInterval(renderStatus, 1000);
  if (typeof ResizeObserver === 'function') new ResizeObserver(scheduleRender).observe(svg.parentNode);
  else window.addEventListener('resize', scheduleRender);
})();
