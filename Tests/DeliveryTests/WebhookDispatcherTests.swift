import MissionProximity
import Testing

@testable import Delivery

@Suite struct WebhookDispatcherTests {
  typealias Action = WebhookDispatcher.Action

  /// The schedule the scenarios use: waits of 10 s then 20 s (three attempts), no jitter.
  private static let shortSchedule = RetrySchedule(
    delaysSeconds: [10, 20], jitterFraction: 0, maximumRetryAfterSeconds: 100)

  private static func event(_ seq: Int64, _ mission: String?) -> OutboxEvent {
    OutboxEvent(seq: seq, missionID: mission, body: Array("{\"seq\":\(seq)}".utf8))
  }

  private static func send(_ seq: Int64, _ mission: String?, attempt: Int = 1) -> Action {
    .send(event(seq, mission), attempt: attempt)
  }

  private static let failed = DeliveryOutcome.failed(reason: "HTTP 500", retryAfterSeconds: nil)

  /// One step of a scenario: what happens, and the actions expected back.
  enum Step {
    case enqueue([(Int64, String?)], now: Double, expect: [Action])
    case complete(Int64, DeliveryOutcome, now: Double, expect: [Action])
    case tick(now: Double, expect: [Action])
    case skip(through: Int64, expect: [Action])
  }

  /// Scenarios, each a list of steps with the exact actions each must return.
  static let scenarios: [(name: String, maximumInFlight: Int, steps: [Step])] = [
    (
      "one mission's events go one at a time, in order; another mission runs beside it", 16,
      [
        .enqueue(
          [(1, "A"), (2, "A"), (3, "B")], now: 0, expect: [send(1, "A"), send(3, "B")]),
        .complete(3, .delivered, now: 1, expect: [.delivered(seq: 3, attempt: 1)]),
        .complete(
          1, .delivered, now: 2,
          expect: [.delivered(seq: 1, attempt: 1), .advanceCursor(to: 1), send(2, "A")]),
        .complete(
          2, .delivered, now: 3, expect: [.delivered(seq: 2, attempt: 1), .advanceCursor(to: 3)]),
      ]
    ),
    (
      "a failure is retried on the schedule, then dead, and the mission moves on", 16,
      [
        .enqueue([(1, "A"), (2, "A")], now: 0, expect: [send(1, "A")]),
        .complete(
          1, failed, now: 1,
          expect: [
            .retryLater(seq: 1, attempt: 1, reason: "HTTP 500", atSeconds: 11),
            .wake(atSeconds: 11),
          ]),
        .tick(now: 10.9, expect: [.wake(atSeconds: 11)]),
        .tick(now: 11, expect: [send(1, "A", attempt: 2)]),
        .complete(
          1, failed, now: 12,
          expect: [
            .retryLater(seq: 1, attempt: 2, reason: "HTTP 500", atSeconds: 32),
            .wake(atSeconds: 32),
          ]),
        .tick(now: 40, expect: [send(1, "A", attempt: 3)]),
        .complete(
          1, failed, now: 41,
          expect: [
            .dead(seq: 1, attempts: 3, reason: "HTTP 500"), .advanceCursor(to: 1), send(2, "A"),
          ]),
      ]
    ),
    (
      "a longer Retry-After wins over the schedule", 16,
      [
        .enqueue([(1, "A")], now: 0, expect: [send(1, "A")]),
        .complete(
          1, .failed(reason: "HTTP 503", retryAfterSeconds: 60), now: 0,
          expect: [
            .retryLater(seq: 1, attempt: 1, reason: "HTTP 503", atSeconds: 60),
            .wake(atSeconds: 60),
          ]),
      ]
    ),
    (
      "a retry does not hold other missions back, and the cursor waits for it", 16,
      [
        .enqueue([(1, "A"), (2, "B")], now: 0, expect: [send(1, "A"), send(2, "B")]),
        .complete(
          1, failed, now: 1,
          expect: [
            .retryLater(seq: 1, attempt: 1, reason: "HTTP 500", atSeconds: 11),
            .wake(atSeconds: 11),
          ]),
        .complete(
          2, .delivered, now: 2, expect: [.delivered(seq: 2, attempt: 1), .wake(atSeconds: 11)]),
        .enqueue([(3, "B")], now: 3, expect: [send(3, "B"), .wake(atSeconds: 11)]),
        .tick(now: 11, expect: [send(1, "A", attempt: 2)]),
        .complete(
          1, .delivered, now: 12, expect: [.delivered(seq: 1, attempt: 2), .advanceCursor(to: 2)]),
        .complete(
          3, .delivered, now: 13, expect: [.delivered(seq: 3, attempt: 1), .advanceCursor(to: 3)]),
      ]
    ),
    (
      "no more than the limit in flight; a completion lets the next one go", 2,
      [
        .enqueue(
          [(1, "A"), (2, "B"), (3, "C"), (4, nil)], now: 0, expect: [send(1, "A"), send(2, "B")]),
        .complete(2, .delivered, now: 1, expect: [.delivered(seq: 2, attempt: 1), send(3, "C")]),
        .complete(
          1, .delivered, now: 2,
          expect: [.delivered(seq: 1, attempt: 1), .advanceCursor(to: 2), send(4, nil)]),
        .complete(4, .delivered, now: 3, expect: [.delivered(seq: 4, attempt: 1)]),
        .complete(
          3, .delivered, now: 4, expect: [.delivered(seq: 3, attempt: 1), .advanceCursor(to: 4)]),
      ]
    ),
    (
      "events of no mission are not ordered after each other", 16,
      [
        .enqueue([(1, nil), (2, nil)], now: 0, expect: [send(1, nil), send(2, nil)]),
        .complete(2, .delivered, now: 1, expect: [.delivered(seq: 2, attempt: 1)]),
        .complete(
          1, .delivered, now: 1, expect: [.delivered(seq: 1, attempt: 1), .advanceCursor(to: 2)]),
      ]
    ),
    (
      "410 disables the webhook: nothing more is sent, the cursor does not move", 16,
      [
        .enqueue([(1, "A"), (2, "A"), (3, "B")], now: 0, expect: [send(1, "A"), send(3, "B")]),
        .complete(
          1, .gone, now: 1, expect: [.disable(reason: "the receiver answered 410 Gone for event 1")]
        ),
        .complete(3, .delivered, now: 1, expect: []),
        .enqueue([(4, "C")], now: 2, expect: []),
        .tick(now: 100, expect: []),
      ]
    ),
    (
      "skipped seqs move the cursor once everything before them is done", 16,
      [
        .skip(through: 5, expect: [.advanceCursor(to: 5)]),
        .enqueue([(6, "A")], now: 0, expect: [send(6, "A")]),
        .skip(through: 9, expect: []),
        .complete(
          6, .delivered, now: 1, expect: [.delivered(seq: 6, attempt: 1), .advanceCursor(to: 9)]),
      ]
    ),
    (
      "repeated and old events are ignored; an outcome for no attempt in flight too", 16,
      [
        .enqueue([(1, "A"), (1, "A"), (0, "B")], now: 0, expect: [send(1, "A")]),
        .complete(7, .delivered, now: 1, expect: []),
        .complete(
          1, .delivered, now: 1, expect: [.delivered(seq: 1, attempt: 1), .advanceCursor(to: 1)]),
        .complete(1, .delivered, now: 2, expect: []),
      ]
    ),
  ]

  @Test(arguments: scenarios.indices)
  func scenario(_ index: Int) {
    let scenario = Self.scenarios[index]
    var dispatcher = WebhookDispatcher(
      cursor: 0, schedule: Self.shortSchedule, maximumInFlight: scenario.maximumInFlight)
    var random = SplitMix64(seed: 1)
    for (number, step) in scenario.steps.enumerated() {
      let got: [Action]
      let expected: [Action]
      switch step {
      case .enqueue(let events, let now, let expect):
        got = dispatcher.enqueue(events.map { Self.event($0.0, $0.1) }, now: now)
        expected = expect
      case .complete(let seq, let outcome, let now, let expect):
        got = dispatcher.completed(seq: seq, outcome: outcome, now: now, random: &random)
        expected = expect
      case .tick(let now, let expect):
        got = dispatcher.tick(now: now)
        expected = expect
      case .skip(let seq, let expect):
        got = dispatcher.skip(through: seq)
        expected = expect
      }
      #expect(got == expected, "\(scenario.name), step \(number + 1)")
    }
  }

  @Test func aResumedDispatcherIgnoresEventsUpToItsCursor() {
    var dispatcher = WebhookDispatcher(cursor: 10)
    #expect(dispatcher.enqueue([Self.event(9, "A"), Self.event(10, "A")], now: 0) == [])
    #expect(dispatcher.enqueue([Self.event(11, "A")], now: 0) == [Self.send(11, "A")])
  }

  /// Random outcomes against the rules: per-mission order, the in-flight limit, and the
  /// cursor (checked against a brute-force model) — with a fixed seed.
  @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
  func randomOutcomesKeepOrderLimitAndCursor(seed: UInt64) {
    var random = SplitMix64(seed: seed)
    let limit = 4
    var dispatcher = WebhookDispatcher(
      cursor: 0, schedule: Self.shortSchedule, maximumInFlight: limit)
    let missions = ["A", "B", "C", nil]
    var events: [OutboxEvent] = []
    var finished: Set<Int64> = []
    var inFlight: [Int64: OutboxEvent] = [:]
    var cursor: Int64 = 0
    var wake: Double?
    var now = 0.0
    var nextSeq: Int64 = 1

    func apply(_ actions: [Action]) {
      for action in actions {
        switch action {
        case .send(let event, _):
          // No earlier event of its mission may still be unfinished.
          if let mission = event.missionID {
            let earlier = events.filter { $0.missionID == mission && $0.seq < event.seq }
            #expect(earlier.allSatisfy { finished.contains($0.seq) }, "seed \(seed)")
          }
          #expect(inFlight[event.seq] == nil)
          inFlight[event.seq] = event
          #expect(inFlight.count <= limit)
        case .dead(let seq, _, _): finished.insert(seq)
        case .advanceCursor(let seq):
          #expect(seq > cursor)
          cursor = seq
        case .wake(let at): wake = at
        case .delivered, .retryLater, .disable: break
        }
      }
      // The model's cursor: the highest seq with every event up to it finished.
      let model = events.map(\.seq).sorted().prefix { finished.contains($0) }.last ?? 0
      #expect(cursor == model, "seed \(seed)")
    }

    for _ in 0..<400 {
      now += 1
      if Int.random(in: 0..<3, using: &random) == 0 || inFlight.isEmpty {
        let batch = (0..<Int.random(in: 1...3, using: &random)).map { _ -> OutboxEvent in
          defer { nextSeq += 1 }
          return Self.event(nextSeq, missions.randomElement(using: &random) ?? nil)
        }
        events += batch
        apply(dispatcher.enqueue(batch, now: now))
      } else if let seq = inFlight.keys.randomElement(using: &random) {
        inFlight[seq] = nil
        let delivered = Int.random(in: 0..<3, using: &random) > 0
        if delivered { finished.insert(seq) }
        apply(
          dispatcher.completed(
            seq: seq, outcome: delivered ? .delivered : Self.failed, now: now, random: &random))
      }
      if let at = wake, at <= now {
        wake = nil
        apply(dispatcher.tick(now: now))
      }
    }
    // Let everything finish: deliver what is in flight, run the clock past every retry.
    for _ in 0..<1_000 where !(inFlight.isEmpty && wake == nil) {
      now += 5
      for seq in inFlight.keys.sorted() {
        inFlight[seq] = nil
        finished.insert(seq)
        apply(dispatcher.completed(seq: seq, outcome: .delivered, now: now, random: &random))
      }
      if let at = wake, at <= now {
        wake = nil
        apply(dispatcher.tick(now: now))
      }
    }
    #expect(cursor == nextSeq - 1, "seed \(seed)")
    #expect(dispatcher.heldCount == 0)
  }
}
