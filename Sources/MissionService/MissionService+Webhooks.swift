import Foundation
import MissionStore
import MissionTracking
import TextRules

/// `/v1/webhooks…` (DESIGN §9): subscriptions, their failed and dead deliveries, redelivery.
extension MissionService {
  /// `POST /v1/webhooks` `{"url","events"?,"mission_id"?,"worker_id"?}` → 201
  /// `{"webhook":{…,"secret":"whsec_…"}}`: the only answer that shows the secret.
  func addWebhook(_ request: HTTPRequest) throws -> HTTPResponse {
    let body = try CommandBody(request.body, known: ["url", "events", "mission_id", "worker_id"])
    guard let url = try body.string("url") else { throw ServiceError.invalid("url is required") }
    var types: [String]?
    if let elements = try body.array("events") {
      types = try elements.map { element in
        guard case .string(let type) = element.value else {
          throw ServiceError.invalid("events must be an array of event type strings")
        }
        return type
      }
    }
    let webhook = Webhook(
      id: Webhook.makeID(), url: url, eventTypes: types, missionID: try body.string("mission_id"),
      workerID: try body.string("worker_id"), secret: try OutboxDispatcher.makeSecret())
    try database.addWebhook(webhook)
    if let outbox = outboxDispatcher { Task { await outbox.reload() } }
    return .json("{\"webhook\":\(Self.webhookJSON(webhook, showingSecret: true))}", status: 201)
  }

  /// `GET /v1/webhooks`: every webhook, without secrets.
  func listWebhooks(_ request: HTTPRequest) throws -> HTTPResponse {
    let items = try database.webhooks().map { Self.webhookJSON($0, showingSecret: false) }
    return .json("{\"webhooks\":[\(items.joined(separator: ","))]}")
  }

  /// `DELETE /v1/webhooks/{id}` → 204; 404 when there is none.
  func removeWebhook(_ request: HTTPRequest) throws -> HTTPResponse {
    let id = request.parameter("id")
    let removed: Bool
    if let outbox = outboxDispatcher {
      removed = try AsyncBridge.wait { try await outbox.remove(id) }
    } else {
      removed = try database.removeWebhook(id)
    }
    guard removed else { throw StoreError.webhookNotFound(id) }
    return HTTPResponse(status: 204, contentType: "application/json", body: [])
  }

  /// `GET /v1/webhooks/{id}/deliveries?state=pending|failed|dead` (default `failed`):
  /// `pending` lists the matching events after the webhook's cursor with no failure yet.
  func webhookDeliveries(_ request: HTTPRequest) throws -> HTTPResponse {
    let id = request.parameter("id")
    guard let webhook = try database.webhook(id) else { throw StoreError.webhookNotFound(id) }
    let text = request.query["state"] ?? "failed"
    guard let state = WebhookDeliveryRecord.State(rawValue: text) else {
      throw ServiceError.invalid(
        "state must be pending, failed or dead, got '\(HTTPRequest.shown(text))'")
    }
    let limit = try request.int("limit", in: 1...10_000) ?? 1_000
    var records: [WebhookDeliveryRecord]
    if state == .pending {
      let cursor = try database.deliveryCursor(Webhook.consumer(id)) ?? 0
      let recorded = Set(
        try database.deliveries(ofWebhook: id, state: .failed, limit: 100_000).map(\.sequence)
          + database.deliveries(ofWebhook: id, state: .dead, limit: 100_000).map(\.sequence))
      records = []
      var after = cursor
      while records.count < limit {
        let events = try database.committedEvents(afterSequence: after, limit: 1_000)
        guard let last = events.last else { break }
        for stored in events
        where webhook.matches(stored.event) && !recorded.contains(stored.sequence) {
          records.append(
            WebhookDeliveryRecord(
              webhookID: id, sequence: stored.sequence, state: .pending, attempts: 0))
          if records.count == limit { break }
        }
        after = last.sequence
      }
    } else {
      records = try database.deliveries(ofWebhook: id, state: state, limit: limit)
    }
    let items = records.map { record in
      var json = JSONObjectWriter()
      json.add("seq", Int(record.sequence))
      json.add("state", record.state.rawValue)
      json.add("attempts", record.attempts)
      json.addIfPresent("next_attempt", record.nextAttempt.map(UTCTime.format))
      json.addIfPresent("last_error", record.lastError)
      return json.result
    }
    return .json("{\"deliveries\":[\(items.joined(separator: ","))]}")
  }

  /// `POST /v1/webhooks/{id}/redeliver?from=SEQ` → 202: every matching event from `SEQ` on
  /// is sent again (dead ones too), and a webhook a 410 disabled is enabled again.
  func redeliverWebhook(_ request: HTTPRequest) throws -> HTTPResponse {
    let id = request.parameter("id")
    guard let from = try request.int("from", in: 1...Int.max) else {
      throw ServiceError.invalid("from=SEQ is required (the first event to send again)")
    }
    if let outbox = outboxDispatcher {
      try AsyncBridge.wait { try await outbox.redeliver(id, from: Int64(from)) }
    } else {
      try database.redeliverWebhook(id, from: Int64(from))
    }
    var json = JSONObjectWriter()
    json.add("id", id)
    json.add("redeliver_from", from)
    return .json("{\"webhook\":\(json.result)}", status: 202)
  }

  /// A new webhook signing secret (`whsec_…`), for `missiontrack webhooks add`.
  /// - Throws: `ServiceError` when libcrypto has no random bytes.
  package static func makeWebhookSecret() throws -> String { try OutboxDispatcher.makeSecret() }

  /// A webhook's JSON object; the secret only when `showingSecret`.
  package static func webhookJSON(_ webhook: Webhook, showingSecret: Bool) -> String {
    var json = JSONObjectWriter()
    json.add("id", webhook.id)
    json.add("url", webhook.url)
    if let types = webhook.eventTypes {
      // Checked against `TrackingEvent.types` when stored: nothing to escape.
      json.addRaw("events", json: "[" + types.map { "\"\($0)\"" }.joined(separator: ",") + "]")
    }
    json.addIfPresent("mission_id", webhook.missionID)
    json.addIfPresent("worker_id", webhook.workerID)
    json.add("created", UTCTime.format(webhook.created))
    json.add("enabled", webhook.disabledReason == nil)
    json.addIfPresent("disabled_reason", webhook.disabledReason)
    json.add("origin", webhook.fromFlag ? "flag" : "api")
    if showingSecret { json.add("secret", webhook.secret) }
    return json.result
  }
}
