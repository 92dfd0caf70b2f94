import Foundation
import MissionCatalog
import MissionTracking
import PostgresTestSupport
import Testing

@testable import PostgresStore

/// Several nodes on one PostgreSQL database share the outbox (DESIGN §10): a consumer is
/// claimed by one node at a time, and events reach the log in commit order so that no
/// consumer's cursor passes an event that commits later. Each node is its own connection.
@Suite(
  .enabled(
    if: PostgresTestCluster.isAvailable,
    "PostgreSQL 15 + PostGIS 3 are not installed (Tools/setup): PostgreSQL tests skipped"))
struct SharedDeliveryTests {
  /// Two nodes on a fresh database holding mission `m1` and webhook `wh_1`.
  static func twoNodes() async throws -> (uri: String, a: PostgresDatabase, b: PostgresDatabase) {
    let uri = try PostgresFixture.database()
    let a = try PostgresDatabase(uri: uri)
    try a.insert([Fixtures.mission("m1")])
    try a.addWebhook(Webhook(id: "wh_1", url: "http://127.0.0.1:9/", secret: "whsec_x"))
    return (uri, a, try PostgresDatabase(uri: uri))
  }

  @Test func twoNodesClaimingOneConsumerOneWinsUntilItsClaimEndsOrExpires() async throws {
    let (_, a, b) = try await Self.twoNodes()
    let consumer = Webhook.consumer("wh_1")
    #expect(try a.claimConsumer(consumer, node: "a", for: .seconds(30)))
    #expect(try !b.claimConsumer(consumer, node: "b", for: .seconds(30)))
    // The holder renews; the other still loses.
    #expect(try a.claimConsumer(consumer, node: "a", for: .seconds(30)))
    #expect(try !b.claimConsumer(consumer, node: "b", for: .seconds(30)))
    // Another node's release does not end the claim; the holder's does.
    try b.releaseConsumer(consumer, node: "b")
    #expect(try !b.claimConsumer(consumer, node: "b", for: .seconds(30)))
    try a.releaseConsumer(consumer, node: "a")
    #expect(try b.claimConsumer(consumer, node: "b", for: .seconds(30)))
    #expect(try !a.claimConsumer(consumer, node: "a", for: .seconds(30)))
    // A lease that ran out (a renewal for no time stands for a node that stopped renewing):
    // the other node takes over.
    #expect(try b.claimConsumer(consumer, node: "b", for: .zero))
    #expect(try a.claimConsumer(consumer, node: "a", for: .seconds(30)))
    #expect(try !b.claimConsumer(consumer, node: "b", for: .seconds(30)))
    // A lease runs out by the clock, too.
    try a.releaseConsumer(consumer, node: "a")
    #expect(try b.claimConsumer(consumer, node: "b", for: .milliseconds(200)))
    let tookOver = try await eventually(within: .seconds(10)) {
      try a.claimConsumer(consumer, node: "a", for: .seconds(30))
    }
    #expect(tookOver)
    #expect(try !b.claimConsumer(consumer, node: "b", for: .seconds(30)))
    // The claim does not move the cursor.
    #expect(try a.deliveryCursor(consumer) == 0)
  }

  @Test func aConsumerWithoutACursorIsNotClaimedAndARemovedWebhookLosesItsClaim()
    async throws
  {
    let (_, a, b) = try await Self.twoNodes()
    #expect(try !a.claimConsumer("mqtt:missiontrack", node: "a", for: .seconds(30)))
    #expect(try a.deliveryCursor("mqtt:missiontrack") == nil)
    try a.advanceDeliveryCursors(["mqtt:missiontrack": 0])
    #expect(try a.claimConsumer("mqtt:missiontrack", node: "a", for: .seconds(30)))
    #expect(try b.claimConsumer(Webhook.consumer("wh_1"), node: "b", for: .seconds(30)))
    #expect(try a.removeWebhook("wh_1"))
    #expect(try !a.claimConsumer(Webhook.consumer("wh_1"), node: "a", for: .seconds(30)))
    #expect(try a.deliveryCursor(Webhook.consumer("wh_1")) == nil)
  }

  /// A node that is claiming the consumer at this moment (its transaction holds the row)
  /// makes the other answer false at once, not wait: `SKIP LOCKED`. The holding session is
  /// ended by the server after 3 s idle, so a claim that waited would then win.
  @Test func aClaimInProgressElsewhereIsSkippedNotAwaited() async throws {
    let (uri, _, b) = try await Self.twoNodes()
    let holder = try PostgresConnection(uri: uri)
    try holder.execute("SET idle_in_transaction_session_timeout = '3s'")
    try holder.execute("BEGIN")
    try holder.execute(
      "SELECT seq FROM delivery_cursors WHERE consumer = 'webhook:wh_1' FOR UPDATE")
    // A claim that waited for the row would win once the server ends the holder's session.
    #expect(try !b.claimConsumer("webhook:wh_1", node: "b", for: .seconds(30)))
    // Once the holder's transaction is gone, the claim is free.
    let won = try await eventually(within: .seconds(10)) {
      try b.claimConsumer("webhook:wh_1", node: "b", for: .seconds(30))
    }
    #expect(won)
  }

  /// Events reach the log in commit order: while one node's transaction that wrote an
  /// event is open, another node's event (a later `seq`) is not committed before it, so a
  /// reader never sees `seq` n+1 without n.
  @Test func anEventIsNeverReadBeforeAnEarlierOneThatCommitsLater() async throws {
    let (uri, reader, b) = try await Self.twoNodes()
    let slow = try PostgresConnection(uri: uri)
    try slow.execute("BEGIN")
    try slow.execute(
      """
      INSERT INTO events (mission_id, worker_id, type, time, distance_m, watch_id)
      VALUES ('m1', 'w-slow', 'mission_nearby', mt_time(1780000000250000), 1, 'watch-slow')
      """)
    let fast = TrackingEvent(
      time: Fixtures.start, missionID: "m1", workerID: "w-fast",
      kind: .nearby(watchID: "watch-fast", distanceMeters: 2))
    let writer = Task { try b.recordEvents([fast]) }
    let seenEarly = try await eventually(within: .seconds(2)) {
      try !reader.committedEvents(afterSequence: 0, limit: 10).isEmpty
    }
    #expect(!seenEarly, "an event was readable while an earlier seq was uncommitted")
    try slow.execute("COMMIT")
    try await writer.value
    let events = try reader.committedEvents(afterSequence: 0, limit: 10)
    #expect(events.map { $0.event.workerID } == ["w-slow", "w-fast"])
    #expect(events.map(\.sequence) == events.map(\.sequence).sorted())
  }
}
