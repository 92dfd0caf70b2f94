import Foundation
import MissionTracking
import TextRules

/// A webhook subscription (DESIGN §9): where events are POSTed, which ones, and the secret
/// they are signed with.
package struct Webhook: Sendable, Hashable {
  /// The id (`wh_` and 16 hex digits when the store makes it).
  package var id: String
  /// The receiver (`http://` or `https://`).
  package var url: String
  /// The event types sent, nil for every type.
  package var eventTypes: [String]?
  /// Only this mission's events, when set.
  package var missionID: String?
  /// Only this worker's events, when set.
  package var workerID: String?
  /// The signing secret, `whsec_` and base64.
  package var secret: String
  /// When it was added.
  package var created: Date
  /// Why it is disabled (a receiver answered `410 Gone`), nil while enabled.
  package var disabledReason: String?
  /// Whether `serve --webhook` added it (found again by URL at the next start).
  package var fromFlag: Bool

  /// A webhook.
  package init(
    id: String, url: String, eventTypes: [String]? = nil, missionID: String? = nil,
    workerID: String? = nil, secret: String, created: Date = Date(),
    disabledReason: String? = nil, fromFlag: Bool = false
  ) {
    self.id = id
    self.url = url
    self.eventTypes = eventTypes
    self.missionID = missionID
    self.workerID = workerID
    self.secret = secret
    self.created = created
    self.disabledReason = disabledReason
    self.fromFlag = fromFlag
  }

  /// A new id: `wh_` and 16 random hex digits.
  package static func makeID() -> String {
    var random = SystemRandomNumberGenerator()
    let value = random.next() as UInt64
    let hex = String(value, radix: 16)
    return "wh_" + String(repeating: "0", count: 16 - hex.count) + hex
  }

  /// The name of webhook `id`'s cursor over the event log (`webhook:<id>`), the same in
  /// every store.
  package static func consumer(_ id: String) -> String { "webhook:" + id }

  /// `eventTypes` as a store keeps them: comma-separated, nil for every type.
  package var storedEventTypes: String? { eventTypes?.joined(separator: ",") }

  /// The event types of a store's `storedEventTypes` text.
  package static func eventTypes(stored text: String?) -> [String]? {
    text.map { $0.split(separator: ",").map(String.init) }
  }

  /// Why a store refuses this webhook, or nil: `problem`, or an id against `Identifier`.
  package var storageProblem: String? {
    if let problem { return problem }
    return Identifier.problem(with: id).map { "id " + $0 }
  }

  /// Whether `event` passes the filter.
  package func matches(_ event: TrackingEvent) -> Bool {
    if let eventTypes, !eventTypes.contains(event.type) { return false }
    if let missionID, event.missionID != missionID { return false }
    if let workerID, event.workerID != workerID { return false }
    return true
  }

  /// Why this webhook cannot be stored, or nil: the URL must be absolute `http`/`https` with a
  /// host, the types known.
  package var problem: String? {
    guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
      scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty
    else {
      return "url must be an absolute http:// or https:// URL, got '\(url)'"
    }
    if let eventTypes {
      if eventTypes.isEmpty { return "events must name at least one event type" }
      for type in eventTypes where !TrackingEvent.types.contains(type) {
        return
          "unknown event type '\(type)' (known: \(TrackingEvent.types.joined(separator: ", ")))"
      }
    }
    return nil
  }
}
