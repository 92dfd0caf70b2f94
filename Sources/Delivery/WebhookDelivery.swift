import Foundation

/// Runs one webhook's deliveries: executes a `WebhookDispatcher`'s actions with the
/// `HTTPClient`, signing each attempt, and reports what the store must record.
///
/// The driver of the pure dispatcher: `send` becomes a signed POST on the client (whose own
/// thread does the I/O), `wake` a timer task, and every other action goes to `report`
/// (`delivered`, `retryLater`, `dead`, `advanceCursor`, `disable`), called on this actor in
/// the order the dispatcher decided. Time for the schedule is monotonic (`ContinuousClock`);
/// `webhook-timestamp` is the wall clock at each attempt.
package actor WebhookDelivery {
  /// Where a webhook delivers and how it signs.
  package struct Endpoint: Sendable {
    /// The receiver's URL.
    package var url: String
    /// The signing secret.
    package var secret: WebhookSecret

    /// An endpoint.
    package init(url: String, secret: WebhookSecret) {
      self.url = url
      self.secret = secret
    }
  }

  private let endpoint: Endpoint
  private let client: HTTPClient
  private let report: @Sendable (WebhookDispatcher.Action) -> Void
  private var dispatcher: WebhookDispatcher
  private var random = SystemRandomNumberGenerator()
  private let start = ContinuousClock.now
  private var timer: (due: Double, task: Task<Void, Never>)?
  private var isStopped = false

  /// Deliveries to `endpoint` resuming after `cursor`.
  /// - Parameters:
  ///   - schedule: `.standard` in production; a test may pass `.standard.scaled(by:)`.
  ///   - report: told of every action but `send` and `wake`, in order.
  package init(
    endpoint: Endpoint, cursor: Int64, client: HTTPClient,
    schedule: RetrySchedule = .standard, maximumInFlight: Int = 16,
    report: @escaping @Sendable (WebhookDispatcher.Action) -> Void
  ) {
    self.endpoint = endpoint
    self.client = client
    self.report = report
    dispatcher = WebhookDispatcher(
      cursor: cursor, schedule: schedule, maximumInFlight: maximumInFlight)
  }

  /// Every event up to this `seq` is delivered, dead or skipped.
  package var cursor: Int64 { dispatcher.cursor }
  /// Events taken in and not yet behind the cursor (stop reading the outbox while large).
  package var heldCount: Int { dispatcher.heldCount }
  /// Whether a 410 disabled the webhook.
  package var isDisabled: Bool { dispatcher.isDisabled }

  /// Takes in events read from the outbox, in increasing `seq`.
  package func enqueue(_ events: [OutboxEvent]) {
    guard !isStopped else { return }
    run(dispatcher.enqueue(events, now: now))
  }

  /// The outbox was read through `seq` with nothing more for this webhook.
  package func skip(through seq: Int64) {
    guard !isStopped else { return }
    run(dispatcher.skip(through: seq))
  }

  /// Stops: no new attempt starts and outcomes still to come are ignored (their events
  /// stay behind the cursor and are sent again by the next run: at least once).
  package func stop() {
    isStopped = true
    timer?.task.cancel()
    timer = nil
  }

  /// Seconds since this delivery started, monotonic.
  private var now: Double {
    let elapsed = start.duration(to: .now).components
    return Double(elapsed.seconds) + Double(elapsed.attoseconds) * 1e-18
  }

  private func run(_ actions: [WebhookDispatcher.Action]) {
    for action in actions {
      switch action {
      case .send(let event, _): send(event)
      case .wake(let due): wake(at: due)
      case .disable:
        report(action)
        stop()
      default: report(action)
      }
    }
  }

  private func send(_ event: OutboxEvent) {
    let endpoint = endpoint
    let client = client
    Task {
      let headers = WebhookSignature.headers(
        secret: endpoint.secret, seq: event.seq, timestamp: Int64(Date().timeIntervalSince1970),
        body: event.body)
      let result = await client.post(url: endpoint.url, headers: headers, body: event.body)
      self.completed(seq: event.seq, outcome: DeliveryOutcome(result))
    }
  }

  private func completed(seq: Int64, outcome: DeliveryOutcome) {
    guard !isStopped else { return }
    run(dispatcher.completed(seq: seq, outcome: outcome, now: now, random: &random))
  }

  /// Keeps one timer, for the latest `wake`.
  private func wake(at due: Double) {
    if let timer, timer.due == due { return }
    timer?.task.cancel()
    let delay = max(0, due - now)
    timer = (
      due,
      Task {
        try? await Task.sleep(for: .seconds(delay))
        guard !Task.isCancelled else { return }
        self.tick()
      }
    )
  }

  private func tick() {
    guard !isStopped else { return }
    timer = nil
    run(dispatcher.tick(now: now))
  }
}
