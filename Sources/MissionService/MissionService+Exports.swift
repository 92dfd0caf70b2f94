import Foundation
import MissionReporting
import MissionStore
import MissionTracking
import TextRules
import TraceFormats

extension MissionService {
  /// `GET /v1/missions/{id}/track?format=geojson|gpx|jsonl` (default geojson).
  func track(_ request: HTTPRequest) throws -> HTTPResponse {
    let id = request.parameter("id")
    guard let mission = try database.mission(id: id) else { throw Self.noMission(id) }
    let name = mission.title.isEmpty ? mission.id : "\(mission.id): \(mission.title)"
    switch request.query["format"] ?? "geojson" {
    case "geojson":
      return HTTPResponse(
        status: 200, contentType: "application/geo+json",
        text: GeoJSONWriter.document(for: try database.track(ofMission: mission.id), name: name))
    case "gpx":
      return HTTPResponse(
        status: 200, contentType: "application/gpx+xml",
        text: GPXWriter.document(for: try database.track(ofMission: mission.id), trackName: name))
    case "jsonl":
      return try missionEvents(request)
    case let other:
      throw ServiceError.invalid(
        "format must be geojson, gpx or jsonl, got '\(Self.oneLine(other, limit: 64))'")
    }
  }

  /// `GET /v1/missions/{id}/events`: its events as JSON lines, in order.
  func missionEvents(_ request: HTTPRequest) throws -> HTTPResponse {
    let id = request.parameter("id")
    guard let mission = try database.mission(id: id) else { throw Self.noMission(id) }
    let lines = try database.eventLines(ofMission: mission.id)
    return HTTPResponse(
      status: 200, contentType: "application/x-ndjson",
      text: lines.isEmpty ? "" : lines.joined(separator: "\n") + "\n")
  }

  /// `GET /v1/missions/{id}/report.svg`: the map report, as `missiontrack report` draws it.
  func report(_ request: HTTPRequest) throws -> HTTPResponse {
    let id = request.parameter("id")
    guard let mission = try database.mission(id: id) else { throw Self.noMission(id) }
    let report = MissionReport(
      mission: mission, track: try database.track(ofMission: mission.id),
      events: try database.events(
        ofMission: mission.id, ofWorker: nil, afterSequence: 0, limit: nil
      ).map(\.event))
    return HTTPResponse(
      status: 200, contentType: "image/svg+xml", text: ReportRenderer().svg(report))
  }

  /// `GET /v1/events[?mission_id=][&worker_id=][&after=SEQ]` with `Last-Event-ID`:
  /// Server-Sent Events, of one mission and/or one worker when given.
  func events(_ request: HTTPRequest) throws -> HTTPResponse {
    var after: Int64?
    if let text = request.header("last-event-id") ?? request.query["after"] {
      guard let value = Int64(text.trimmingCharacters(in: .whitespaces)), value >= 0 else {
        throw ServiceError.badRequest(
          "Last-Event-ID and after must be an event sequence number, got '\(Self.oneLine(text, limit: 64))'"
        )
      }
      after = value
    }
    var missionID: String?
    if let id = request.query["mission_id"] {
      guard let mission = try database.mission(id: id) else { throw Self.noMission(id) }
      missionID = mission.id
    }
    var workerID: String?
    if let text = request.query["worker_id"] {
      let id = try CommandBody.identifier(text, of: "worker_id")
      guard try database.worker(id) != nil else { throw Self.noWorker(id) }
      workerID = id
    }
    if request.method == "HEAD" {
      // The headers only: a subscription would linger, unread, until the next keepalive.
      return HTTPResponse(
        status: 200, contentType: "text/event-stream", body: [],
        headers: [("X-Accel-Buffering", "no")])
    }
    let stream = try hub.subscribe(after: after, missionID: missionID, workerID: workerID)
    return HTTPResponse(
      status: 200, contentType: "text/event-stream", stream: stream,
      headers: [("X-Accel-Buffering", "no")])
  }
}
