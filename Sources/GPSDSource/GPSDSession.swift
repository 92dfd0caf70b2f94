import Foundation
import MissionTracking

/// One run of a gpsd source: the body of its reader thread, from the first connection
/// attempt to the stop request (or to giving up under the retry policy).
///
/// `Sendable` because every stored property is immutable and `Sendable`; the mutable state
/// of the run (the libgps connection, the line framer, the epoch merger) lives in locals of
/// `run()`, which executes on exactly one thread.
final class GPSDSession: Sendable {
  struct Configuration: Sendable {
    var host: String
    var port: Int
    var device: String?
    var retryPolicy: RetryPolicy
    var epochTimeout: Duration
    var pollInterval: Duration
    var maximumLineBytes: Int
  }

  let configuration: Configuration
  let continuation: AsyncThrowingStream<SourceReport, any Error>.Continuation
  let stop: GPSDStopSignal
  let counters: GPSDSharedCounters

  init(
    configuration: Configuration,
    continuation: AsyncThrowingStream<SourceReport, any Error>.Continuation,
    stop: GPSDStopSignal, counters: GPSDSharedCounters
  ) {
    self.configuration = configuration
    self.continuation = continuation
    self.stop = stop
    self.counters = counters
  }

  private var endpoint: String {
    GPSDFixSource.endpointText(host: configuration.host, port: configuration.port)
  }

  /// Connects, reads, reconnects, until stopped. Finishes the stream on the way out.
  func run() {
    GPSDClient.ignoreBrokenPipeOnThisThread()
    let client = GPSDClient()
    var delivery = LiveFixDelivery(outageSubject: "gpsd")
    var failures = 0
    var hasConnected = false
    var outageReported = false
    let policy = configuration.retryPolicy
    let slice = configuration.pollInterval
    defer {
      client.disableWatch()
      client.close()
    }

    while !stop.isRequested {
      var failure: String?
      do {
        try client.open(host: configuration.host, port: configuration.port)
        if !client.enableWatch(device: configuration.device) {
          client.close()
          failure = "could not send the WATCH command"
        }
      } catch {
        failure = "\(error.message) (libgps error \(error.code))"
      }
      if let failure {
        failures += 1
        counters.update { $0.failedConnectAttempts += 1 }
        if !outageReported {
          outageReported = true
          emit(.disconnected, "cannot connect to gpsd at \(endpoint): \(failure)")
        }
        if let limit = policy.maximumAttempts, failures >= limit {
          continuation.finish(
            throwing: GPSDError.unreachable(
              host: configuration.host, port: configuration.port, attempts: failures,
              reason: failure))
          return
        }
        let delay = policy.delay(beforeRetry: failures)
        emit(.reconnecting, "retry \(failures) in \(LiveFixDelivery.format(delay)) s")
        if stop.wait(for: delay, slice: slice) { break }
        continue
      }

      counters.update {
        $0.connections += 1
        if hasConnected { $0.reconnects += 1 }
      }
      outageReported = false
      // A reconnection after fixes were delivered: the next fix closes a gap.
      delivery.connected()
      hasConnected = true
      let watched = configuration.device.map { " watching \($0)" } ?? ""
      emit(.connected, "gpsd at \(endpoint)\(watched)")

      guard let lost = readUntilStoppedOrLost(client, &delivery) else { break }
      client.close()
      delivery.lost()
      outageReported = true
      emit(.disconnected, "lost gpsd at \(endpoint): \(lost.reason)")
      // A connection that carried reports resets the backoff; one that was dropped before
      // any report (a gpsd that accepts and hangs up) keeps growing it, so a flapping gpsd
      // is not hammered.
      failures = lost.sawReports ? 1 : failures + 1
      let delay = policy.delay(beforeRetry: failures)
      emit(.reconnecting, "retry \(failures) in \(LiveFixDelivery.format(delay)) s")
      if stop.wait(for: delay, slice: slice) { break }
    }
    continuation.finish()
  }

  /// Why a connection ended, and whether it carried any `TPV` report first.
  private struct Loss {
    var reason: String
    var sawReports: Bool
  }

  /// Reads lines until a stop request (returns `nil`) or a lost connection (returns why).
  private func readUntilStoppedOrLost(_ client: GPSDClient, _ delivery: inout LiveFixDelivery)
    -> Loss?
  {
    var framer = GPSDLineFramer(maximumLineBytes: configuration.maximumLineBytes)
    var merger = GPSDEpochMerger()
    var buffer = [UInt8](repeating: 0, count: 8192)
    let clock = ContinuousClock()
    var lastFixReportAt = clock.now
    var sawReports = false
    let pollMicroseconds = Int32(clamping: Int((configuration.pollInterval.seconds * 1e6)))

    while !stop.isRequested {
      let hasInput = client.waitForInput(timeoutMicroseconds: pollMicroseconds)
      if hasInput {
        let result = buffer.withUnsafeMutableBytes { client.read(into: $0) }
        switch result {
        case .nothing:
          break
        case .closed(let reason):
          if let fix = merger.flush() { deliver(fix, &delivery) }
          return Loss(reason: reason, sawReports: sawReports)
        case .bytes(let count):
          for item in framer.feed(buffer[0..<count]) {
            sawReports =
              handle(item, client, &merger, &delivery, &lastFixReportAt) || sawReports
          }
        }
      }
      // Release a pending epoch once the line has been quiet for the epoch timeout. While
      // input keeps arriving, the next epoch's report releases it instead, so a reader that
      // was descheduled between two reports of one epoch cannot split it; a hard limit of
      // three timeouts covers a stream that never pauses but carries no TPV.
      if merger.pending != nil {
        let waited = lastFixReportAt.duration(to: clock.now)
        if (!hasInput && waited >= configuration.epochTimeout)
          || waited >= configuration.epochTimeout * 3,
          let fix = merger.flush()
        {
          deliver(fix, &delivery)
        }
      }
    }
    return nil
  }

  /// Handles one framed line; returns whether it was a decodable `TPV` report.
  private func handle(
    _ item: GPSDLineFramer.Item, _ client: GPSDClient, _ merger: inout GPSDEpochMerger,
    _ delivery: inout LiveFixDelivery, _ lastFixReportAt: inout ContinuousClock.Instant
  ) -> Bool {
    guard case .line(let line) = item else {
      counters.update {
        $0.linesRead += 1
        $0.skippedLines += 1
        $0.overlongLines += 1
      }
      return false
    }
    counters.update { $0.linesRead += 1 }
    switch GPSDLineKind(line: line) {
    case .malformed:
      counters.update { $0.skippedLines += 1 }
      return false
    case .other:
      return false
    case .tpv:
      guard let report = client.decodeTPV(line) else {
        counters.update { $0.skippedLines += 1 }
        return false
      }
      switch report.meaning {
      case .unusable:
        counters.update { $0.unusableReports += 1 }
      case .noFix:
        counters.update { $0.noFixReports += 1 }
        if let fix = merger.flush() { deliver(fix, &delivery) }
        if report.mode == 1, !delivery.inNoFixEpisode {
          delivery.inNoFixEpisode = true
          emit(.noFix, "the receiver at gpsd \(endpoint) reports no fix")
        }
      case .fix(let fix):
        lastFixReportAt = ContinuousClock.now
        let (released, merged) = merger.add(fix)
        if merged { counters.update { $0.mergedReports += 1 } }
        if let released { deliver(released, &delivery) }
      }
      return true
    }
  }

  /// Hands a fix to the stream unless it is not newer than the last one delivered.
  private func deliver(_ fix: Fix, _ delivery: inout LiveFixDelivery) {
    guard case .deliver(let gapDetail) = delivery.admit(fix) else {
      counters.update { $0.staleFixesDropped += 1 }
      return
    }
    if let gapDetail { emit(.gap, gapDetail) }
    counters.update { $0.fixesDelivered += 1 }
    continuation.yield(.fix(fix))
  }

  private func emit(_ kind: SourceStatus.Kind, _ detail: String) {
    continuation.yield(.status(SourceStatus(kind, detail: detail)))
  }
}
