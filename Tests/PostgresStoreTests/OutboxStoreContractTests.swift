import Foundation
import MissionCatalog
import MissionTracking
import Testing

/// The `OutboxStore` contract (DESIGN §9), one body over both stores: SQLite and
/// PostgreSQL (a private cluster the tests start) give the same answers.
@Suite struct OutboxStoreContractTests {
  /// The stores with an outbox (the in-memory tracking store has none).
  static let stores = StoreKind.available.filter { $0 != .memory }

  /// A fresh store of `kind` holding missions `m1` and `m2`, as an outbox and as the
  /// tracking store that writes its events.
  static func make(_ kind: StoreKind) async throws -> (ContractStore, any OutboxStore) {
    let fixture = try await ContractStore.make(
      kind, missions: [Fixtures.mission("m1"), Fixtures.mission("m2")])
    return (fixture, try #require(fixture.store as? any OutboxStore))
  }

  /// `count` `mission_nearby` events of mission `mission`, one a second from `first`.
  static func nearbyEvents(_ count: Int, mission: String, first: Int = 0) -> [TrackingEvent] {
    (first..<first + count).map { index in
      TrackingEvent(
        time: Fixtures.start.addingTimeInterval(Double(index)), missionID: mission,
        workerID: "w-\(index)", kind: .nearby(watchID: "watch-\(index)", distanceMeters: 12.5))
    }
  }

  /// A webhook with every field set, created `offset` seconds and 1 µs after the start (a
  /// time both stores keep exactly: whole microseconds).
  static func webhook(_ id: String, created offset: Int64 = 0) -> Webhook {
    Webhook(
      id: id, url: "https://backend.example/hooks/\(id)", eventTypes: ["state", "enter"],
      missionID: "e\u{301}-1", workerID: "bo", secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
      created: Date(
        timeIntervalSince1970: Double(1_780_000_000_250_001 + offset * 1_000_000) / 1_000_000))
  }

  @Test(arguments: stores)
  func webhooksReadBackAsTheyWereAddedOldestFirst(_ kind: StoreKind) async throws {
    let (fixture, outbox) = try await Self.make(kind)
    _ = fixture
    #expect(try outbox.webhooks().isEmpty)
    // Added out of order; by creation time, then by id in code point order (`B` < `a`).
    try outbox.addWebhook(Self.webhook("wh_a", created: 5))
    var plain = Webhook(
      id: "wh_0", url: "http://127.0.0.1:9/x", secret: "whsec_x",
      created: Fixtures.start.addingTimeInterval(10), fromFlag: true)
    try outbox.addWebhook(plain)
    try outbox.addWebhook(Self.webhook("wh_B", created: 5))
    let listed = try outbox.webhooks()
    #expect(listed.map(\.id) == ["wh_B", "wh_a", "wh_0"])
    var expected = Self.webhook("wh_a", created: 5)
    expected.missionID = "\u{e9}-1"  // Stored in NFC.
    #expect(listed[1] == expected)
    // `==` on strings is canonical equivalence: NFC is checked on the bytes.
    #expect(listed[1].missionID.map { Array($0.utf8) } == Array("\u{e9}-1".utf8))
    #expect(listed[2] == plain)
    #expect(try outbox.webhook("wh_B") == listed[0])
    #expect(try outbox.webhook("wh_b") == nil)

    try outbox.setWebhookSecret("whsec_new", of: "wh_0")
    try outbox.disableWebhook("wh_0", reason: "HTTP 410 Gone")
    plain.secret = "whsec_new"
    plain.disabledReason = "HTTP 410 Gone"
    #expect(try outbox.webhook("wh_0") == plain)
    // A redelivery enables it again.
    try outbox.redeliverWebhook("wh_0", from: 1)
    #expect(try outbox.webhook("wh_0")?.disabledReason == nil)

    #expect(try outbox.removeWebhook("wh_a"))
    #expect(try !outbox.removeWebhook("wh_a"))
    #expect(try outbox.webhooks().map(\.id) == ["wh_B", "wh_0"])
  }

  @Test(arguments: stores)
  func aBadWebhookIsRefusedWithTheSameLineAndNothingIsStored(_ kind: StoreKind) async throws {
    let (fixture, outbox) = try await Self.make(kind)
    _ = fixture
    let cases: [(Webhook, String)] = [
      (
        Webhook(id: "wh_1", url: "ftp://x.example/", secret: "whsec_x"),
        "invalid webhook: url must be an absolute http:// or https:// URL, got 'ftp://x.example/'"
      ),
      (
        Webhook(id: "wh_1", url: "http://", secret: "whsec_x"),
        "invalid webhook: url must be an absolute http:// or https:// URL, got 'http://'"
      ),
      (
        Webhook(id: "wh_1", url: "http://a.example", eventTypes: ["teleport"], secret: "s"),
        "invalid webhook: unknown event type 'teleport' (known: "
          + TrackingEvent.types.joined(separator: ", ") + ")"
      ),
      (
        Webhook(id: "wh_1", url: "http://a.example", eventTypes: [], secret: "s"),
        "invalid webhook: events must name at least one event type"
      ),
      (
        Webhook(id: " ", url: "http://a.example", secret: "s"),
        "invalid webhook: id must not be blank"
      ),
    ]
    for (webhook, line) in cases {
      let error = #expect(throws: (any Error).self) { try outbox.addWebhook(webhook) }
      #expect(error.map { "\($0)" } == line)
    }
    #expect(try outbox.webhooks().isEmpty)
    let missing = #expect(throws: (any Error).self) {
      try outbox.redeliverWebhook("wh_nope", from: 1)
    }
    #expect(missing.map { "\($0)" } == "no webhook with id 'wh_nope'")
  }

  @Test(arguments: stores)
  func aCursorStartsAtTheEndOfTheLogAndMovesOnlyForwardUntilARedelivery(_ kind: StoreKind)
    async throws
  {
    let (fixture, outbox) = try await Self.make(kind)
    try await fixture.store.recordEvents(Self.nearbyEvents(3, mission: "m1"))
    try await fixture.store.flush()
    let end = try outbox.lastCommittedSequence()
    #expect(end > 0)
    try outbox.addWebhook(Self.webhook("wh_1"))
    let consumer = Webhook.consumer("wh_1")
    #expect(consumer == "webhook:wh_1")
    #expect(try outbox.deliveryCursor(consumer) == end)
    #expect(try outbox.deliveryCursor("mqtt:missiontrack") == nil)

    try outbox.advanceDeliveryCursors([consumer: end + 5, "mqtt:missiontrack": 2])
    try outbox.advanceDeliveryCursors([consumer: end + 1, "mqtt:missiontrack": 4])
    try outbox.advanceDeliveryCursors([:])
    #expect(try outbox.deliveryCursor(consumer) == end + 5)
    #expect(try outbox.deliveryCursor("mqtt:missiontrack") == 4)

    // A redelivery moves it back to just before the event, never forward.
    try outbox.redeliverWebhook("wh_1", from: 2)
    #expect(try outbox.deliveryCursor(consumer) == 1)
    try outbox.redeliverWebhook("wh_1", from: 3)
    #expect(try outbox.deliveryCursor(consumer) == 1)
    try outbox.redeliverWebhook("wh_1", from: 0)
    #expect(try outbox.deliveryCursor(consumer) == 0)

    // Removed with its webhook; another consumer's cursor stays.
    #expect(try outbox.removeWebhook("wh_1"))
    #expect(try outbox.deliveryCursor(consumer) == nil)
    #expect(try outbox.deliveryCursor("mqtt:missiontrack") == 4)
  }

  @Test(arguments: stores)
  func failedAndDeadDeliveriesAreListedCountedAndForgotten(_ kind: StoreKind) async throws {
    let (fixture, outbox) = try await Self.make(kind)
    _ = fixture
    try outbox.addWebhook(Self.webhook("wh_1"))
    try outbox.addWebhook(Self.webhook("wh_2", created: 1))
    let retry = Fixtures.start.addingTimeInterval(300.25)
    try outbox.noteDeliveryFailure(
      webhook: "wh_1", sequence: 7, attempts: 1, error: "HTTP 500", nextAttempt: retry)
    // A second failure of the same event replaces the first's record.
    try outbox.noteDeliveryFailure(
      webhook: "wh_1", sequence: 7, attempts: 2, error: "connection refused\nby peer",
      nextAttempt: retry.addingTimeInterval(60))
    try outbox.noteDeliveryFailure(
      webhook: "wh_1", sequence: 3, attempts: 1, error: "HTTP 503", nextAttempt: retry)
    let long = String(repeating: "é", count: 2_000)
    for seq: Int64 in [9, 4, 12] {
      try outbox.noteDeliveryFailure(
        webhook: "wh_1", sequence: seq, attempts: 9, error: long, nextAttempt: nil)
    }
    try outbox.noteDeliveryFailure(
      webhook: "wh_2", sequence: 4, attempts: 9, error: "timed out", nextAttempt: nil)

    let failed = try outbox.deliveries(ofWebhook: "wh_1", state: .failed, limit: 1_000)
    #expect(
      failed == [
        WebhookDeliveryRecord(
          webhookID: "wh_1", sequence: 3, state: .failed, attempts: 1, nextAttempt: retry,
          lastError: "HTTP 503"),
        WebhookDeliveryRecord(
          webhookID: "wh_1", sequence: 7, state: .failed, attempts: 2,
          nextAttempt: retry.addingTimeInterval(60), lastError: #"connection refused\nby peer"#),
      ])
    let dead = try outbox.deliveries(ofWebhook: "wh_1", state: .dead, limit: 2)
    #expect(dead.map(\.sequence) == [4, 9])
    #expect(dead.allSatisfy { $0.attempts == 9 && $0.nextAttempt == nil })
    // Kept as one line cut after 500 characters, the same on both stores.
    #expect(dead.first?.lastError == String(repeating: "é", count: 500) + "…")
    #expect(try outbox.deliveries(ofWebhook: "wh_1", state: .pending, limit: 10).isEmpty)
    #expect(try outbox.deliveries(ofWebhook: "wh_3", state: .dead, limit: 10).isEmpty)
    #expect(try outbox.deadDeliveries(ofWebhook: "wh_1", after: 4) == [9, 12])
    #expect(try outbox.deadDeliveryCounts() == ["wh_1": 3, "wh_2": 1])

    // Delivered at last: forgotten.
    try outbox.noteDelivered(webhook: "wh_1", sequence: 7)
    #expect(
      try outbox.deliveries(ofWebhook: "wh_1", state: .failed, limit: 10).map(\.sequence)
        == [3])
    // A redelivery from 9 forgets the failures from 9 on.
    try outbox.redeliverWebhook("wh_1", from: 9)
    #expect(try outbox.deadDeliveries(ofWebhook: "wh_1", after: 0) == [4])
    // Removing the webhook removes its deliveries.
    #expect(try outbox.removeWebhook("wh_1"))
    #expect(try outbox.deadDeliveryCounts() == ["wh_2": 1])
    #expect(try outbox.deliveries(ofWebhook: "wh_1", state: .failed, limit: 10).isEmpty)
  }

  @Test(arguments: stores)
  func committedEventsAreReadInOrderFromACursor(_ kind: StoreKind) async throws {
    let (fixture, outbox) = try await Self.make(kind)
    #expect(try outbox.lastCommittedSequence() == 0)
    #expect(try outbox.committedEvents(afterSequence: 0, limit: 10).isEmpty)
    #expect(try outbox.timeOfEvent(after: 0) == nil)
    let nearby = Self.nearbyEvents(4, mission: "m2")
    try await fixture.store.recordEvents(nearby)
    let accept = Fixtures.transition(
      "m1", .accept, .open, .accepted, at: Fixtures.start.addingTimeInterval(10))
    try await fixture.store.commit(accept)
    try await fixture.store.flush()

    let all = try outbox.committedEvents(afterSequence: 0, limit: 100)
    #expect(all.map(\.event) == nearby + [accept.event])
    let sequences = all.map(\.sequence)
    #expect(sequences == sequences.sorted() && Set(sequences).count == sequences.count)
    #expect(all.allSatisfy { $0.jsonLine == $0.event.jsonLine })
    let last = try #require(sequences.last)
    #expect(try outbox.lastCommittedSequence() == last)
    // A page after a cursor.
    let page = try outbox.committedEvents(afterSequence: sequences[1], limit: 2)
    #expect(page.map(\.sequence) == Array(sequences[2...3]))
    #expect(try outbox.committedEvents(afterSequence: last, limit: 10).isEmpty)
    #expect(try outbox.timeOfEvent(after: sequences[2]) == nearby[3].time)
    #expect(try outbox.timeOfEvent(after: last) == nil)
  }
}
