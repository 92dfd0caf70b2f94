import Foundation
import MissionStore
import MissionTracking
import TextRules

extension MissionService {
  /// `GET /v1/status`: `active_mission` and `source` are those of the worker this process's
  /// source feeds (`local` unless `serve --worker W`).
  func status() throws -> HTTPResponse {
    let engine = self.engine
    let worker = configuration.sourceWorker
    let active = try AsyncBridge.wait { await engine.trackedMissionID(ofWorker: worker) }
    let view = monitor.sourceView
    let now = Date()
    var source = JSONObjectWriter()
    source.add("kind", configuration.sourceKind)
    source.add("status", active == nil ? "idle" : view.status)
    source.add("detail", view.detail.isEmpty ? configuration.sourceDetail : view.detail)
    if let time = view.lastFixTime {
      source.add("last_fix_time", UTCTime.format(time))
    } else {
      source.addRaw("last_fix_time", json: "null")
    }
    if let received = view.lastFixReceived {
      source.add("last_fix_age_s", (now.timeIntervalSince(received) * 1000).rounded() / 1000)
    } else {
      source.addRaw("last_fix_age_s", json: "null")
    }
    var counts = JSONObjectWriter()
    let byState = engine.directory.countsByState
    for state in MissionState.allCases { counts.add(state.rawValue, byState[state] ?? 0) }
    var body = JSONObjectWriter()
    body.add("version", configuration.version)
    body.add("uptime_s", (now.timeIntervalSince(monitor.started) * 1000).rounded() / 1000)
    if let active {
      body.add("active_mission", active)
    } else {
      body.addRaw("active_mission", json: "null")
    }
    body.addRaw("source", json: source.result)
    body.addRaw("missions", json: counts.result)
    return .json(body.result)
  }

  /// `GET /healthz`: 200 `ok`, or 503 with the reason.
  func health() -> HTTPResponse {
    if let problem = healthProblem() {
      return HTTPResponse(
        status: 503, contentType: "text/plain; charset=utf-8", text: problem + "\n")
    }
    return HTTPResponse(status: 200, contentType: "text/plain; charset=utf-8", text: "ok\n")
  }

  /// Why the service is not healthy, or nil: the database does not take a write, or the
  /// source has been down for longer than the limit while a mission is tracked, whatever the
  /// reason. A mission is tracked while it is active or arrived, also when its source failed
  /// and the engine holds no open source for it (a path that is a directory): that is the
  /// rig that records nothing.
  package func healthProblem() -> String? {
    do {
      try database.checkWritable()
    } catch {
      return "database not writable: \(Self.oneLine("\(error)", limit: 300))"
    }
    let engine = self.engine
    let worker = configuration.sourceWorker
    let tracking =
      (try? AsyncBridge.wait { await engine.trackedMissionID(ofWorker: worker) != nil }) ?? false
    let view = monitor.sourceView
    if tracking, let since = view.downSince {
      let down = Date().timeIntervalSince(since)
      if down > configuration.sourceDownLimitSeconds {
        return
          "source \(view.status) for \(Int(down)) s while tracking (limit \(Int(configuration.sourceDownLimitSeconds)) s)"
      }
    }
    return nil
  }

  /// `GET /metrics`: Prometheus text format 0.0.4.
  func metrics() throws -> HTTPResponse {
    let engine = self.engine
    let worker = configuration.sourceWorker
    let (summary, tracking, tracked) = try AsyncBridge.wait {
      (
        await engine.totalSummary, await engine.trackedMissionID(ofWorker: worker) != nil,
        await engine.trackedMissions.count
      )
    }
    let counts = monitor.counts
    let view = monitor.sourceView
    var text = ""
    func metric(_ name: String, _ type: String, _ help: String, _ samples: [(String, Double)]) {
      text += "# HELP missiontrack_\(name) \(help)\n# TYPE missiontrack_\(name) \(type)\n"
      for (labels, value) in samples {
        let number =
          value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
        text += "missiontrack_\(name)\(labels) \(number)\n"
      }
    }
    func label(_ name: String, _ value: String) -> String {
      let escaped = value.replacingOccurrences(of: "\\", with: "\\\\")
        .replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\n", with: "\\n")
      return "{\(name)=\"\(escaped)\"}"
    }
    metric(
      "fixes_received_total", "counter", "Position reports the cleaner took in.",
      [("", Double(summary.reports))])
    metric(
      "fixes_delivered_total", "counter", "Fixes delivered (recorded into a track).",
      [("", Double(counts.events["fix"] ?? 0))])
    metric(
      "fixes_rejected_total", "counter", "Reports the cleaner rejected, by reason.",
      RejectionReason.allCases.map { (label("reason", $0.rawValue), Double(summary.count($0))) })
    metric(
      "events_total", "counter", "Events published, by type.",
      TrackingEvent.types.map {
        (label("type", $0), Double(counts.events[$0] ?? 0))
      })
    metric(
      "last_fix_age_seconds", "gauge",
      "Seconds since the last delivered fix arrived (-1: none yet).",
      [("", view.lastFixReceived.map { Date().timeIntervalSince($0) } ?? -1)])
    metric(
      "source_up", "gauge",
      "1 when the source's worker has a tracked mission and the source is not down.",
      [("", tracking && view.downSince == nil ? 1 : 0)])
    metric(
      "tracking", "gauge", "1 while the mission of this process's source's worker is tracked.",
      [("", tracking ? 1 : 0)])
    metric(
      "workers_tracked", "gauge", "Workers with a tracked mission.", [("", Double(tracked))])
    metric(
      "http_requests_total", "counter", "HTTP requests answered, by status.",
      counts.requests.keys.sorted().map {
        (label("status", String($0)), Double(counts.requests[$0] ?? 0))
      })
    let polls = idlePoll.counts
    metric(
      "http_idle_polls_total", "counter",
      "Polls of a server thread for a quick client's next request before it sleeps, by outcome.",
      [
        (label("outcome", "caught"), Double(polls.caught)),
        (label("outcome", "missed"), Double(polls.missed)),
        (label("outcome", "preempted"), Double(polls.preempted)),
      ])
    let clients = hub.clientCounts
    metric(
      "sse_clients", "gauge", "Connected Server-Sent Events clients.",
      [("", Double(clients.connected))])
    metric(
      "sse_clients_dropped_total", "counter", "SSE clients dropped for not keeping up.",
      [("", Double(clients.dropped))])
    text += ingestMetrics.prometheusText
    if let outbox = outboxDispatcher {
      let (counts, cursors) = try AsyncBridge.wait { await outbox.snapshot() }
      metric(
        "webhook_deliveries_total", "counter", "Webhook delivery attempts, by outcome.",
        [
          (label("outcome", "delivered"), Double(counts.delivered)),
          (label("outcome", "failed"), Double(counts.failed)),
          (label("outcome", "dead"), Double(counts.dead)),
          (label("outcome", "gone"), Double(counts.gone)),
        ])
      metric(
        "mqtt_events_published_total", "counter",
        "Events handed to the MQTT broker (the cursor moves on their PUBACK).",
        [("", Double(counts.published))])
      let now = Date()
      metric(
        "outbox_oldest_undelivered_age_seconds", "gauge",
        "Age (by event time) of the oldest event a consumer has not handed over; 0 when none.",
        try cursors.sorted { $0.key < $1.key }.map { consumer, cursor in
          let age = try database.timeOfEvent(after: cursor).map { now.timeIntervalSince($0) }
          return (label("consumer", consumer), max(0, age ?? 0))
        })
      metric(
        "webhook_dead_deliveries", "gauge", "Dead deliveries (redeliverable), by webhook.",
        try database.deadDeliveryCounts().sorted { $0.key < $1.key }.map {
          (label("webhook", $0.key), Double($0.value))
        })
    }
    return HTTPResponse(
      status: 200, contentType: "text/plain; version=0.0.4; charset=utf-8", text: text)
  }
}
