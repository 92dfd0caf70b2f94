import Foundation
import MissionTracking
import TraceFormats

/// One run of a live source, gpsd or a raw NMEA device alike: the body of its reader thread,
/// from the first connection attempt to the stop request, the end of a pipe, or giving up
/// under the retry policy. This is the one reconnect loop and the one reader loop of the live
/// sources; what differs between them is the `LiveEndpoint`.
///
/// What the stream carries:
/// - `.fix` for every epoch the decoder releases, unless its time is not after the last
///   delivered fix (dropped and counted), so a reconnection never replays positions;
/// - `.status`: `connected`; `disconnected` when the receiver cannot be reached, goes away
///   or (gpsd) is deactivated; `reconnecting` before each retry (capped exponential backoff);
///   `gap` before the first fix after an outage; `no_fix` once per episode; `silent` once when
///   connected but nothing arrived for the silence timeout, then `connected` when input
///   resumes; `ended` at the end of a pipe or file.
///
/// `Sendable` because every stored property is immutable and `Sendable`; the mutable state of
/// the run (the link, the decoder, the delivery bookkeeping) lives in locals of `run()`,
/// which executes on exactly one thread.
final class LiveSession<Endpoint: LiveEndpoint>: Sendable {
  let endpoint: Endpoint
  let retryPolicy: RetryPolicy
  let timing: LiveTiming
  let transcript: LiveTranscript?
  let continuation: AsyncThrowingStream<SourceReport, any Error>.Continuation
  let stop: ReaderStopSignal
  let counters: LiveSharedCounters

  init(
    endpoint: Endpoint, retryPolicy: RetryPolicy, timing: LiveTiming,
    continuation: AsyncThrowingStream<SourceReport, any Error>.Continuation,
    stop: ReaderStopSignal, counters: LiveSharedCounters, transcript: LiveTranscript?
  ) {
    self.endpoint = endpoint
    self.retryPolicy = retryPolicy
    self.timing = timing
    self.transcript = transcript
    self.continuation = continuation
    self.stop = stop
    self.counters = counters
  }

  /// Starts a run on a new reader thread (never the cooperative pool) and returns its
  /// stream; ending the iteration wakes the reader, which closes the link at once.
  static func stream(
    from endpoint: Endpoint, retryPolicy: RetryPolicy, timing: LiveTiming,
    counters: LiveSharedCounters, transcript: LiveTranscript?, threadName: String
  ) -> AsyncThrowingStream<SourceReport, any Error> {
    let (stream, continuation) = AsyncThrowingStream<SourceReport, any Error>.makeStream()
    let stop = ReaderStopSignal()
    let session = LiveSession(
      endpoint: endpoint, retryPolicy: retryPolicy, timing: timing,
      continuation: continuation, stop: stop, counters: counters, transcript: transcript)
    continuation.onTermination = { _ in stop.request() }
    let thread = Thread { session.run() }
    thread.name = threadName
    thread.start()
    return stream
  }

  /// How reading one link ended.
  private enum Outcome {
    /// The consumer stopped.
    case stopped
    /// End of a pipe, standard input or file: the normal end.
    case ended
    /// The link was lost (a terminal or gpsd): reconnect.
    case lost(reason: String)
    /// A fatal error.
    case failed(LiveSourceError)
  }

  /// The decoder of one link and what of its counts was already published.
  private struct Reading {
    var decoder: Endpoint.Decoder
    var published = TraceStatistics()
    var items: [LiveItem] = []
    /// Whether the link carried a report (a fix or a no-fix report): resets the backoff.
    var sawReports = false
    /// gpsd reported its receiver deactivated; silence is not reported meanwhile.
    var receiverLost = false
  }

  /// Connects, reads, reconnects, until stopped, ended or given up. Finishes the stream on
  /// the way out.
  func run() {
    Self.ignoreBrokenPipeOnThisThread()
    var delivery = LiveFixDelivery(outageSubject: endpoint.outageSubject)
    var failures = 0
    var hasConnected = false
    var outageReported = false

    while !stop.isRequested {
      let link: Endpoint.Link
      do {
        link = try endpoint.open()
      } catch {
        guard error.isTransient || retryPolicy.retriesUnusableReceivers else {
          continuation.finish(
            throwing: LiveSourceError.unusable(
              receiver: endpoint.receiverName, reason: error.reason))
          return
        }
        failures += 1
        counters.update { $0.failedAttempts += 1 }
        if !outageReported {
          outageReported = true
          emit(.disconnected, endpoint.openFailureDetail(error.reason))
        }
        if let limit = retryPolicy.maximumAttempts, failures >= limit {
          continuation.finish(
            throwing: LiveSourceError.unreachable(
              receiver: endpoint.receiverName, attempts: failures, reason: error.reason))
          return
        }
        if waitBeforeRetry(failures) { break }
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
      emit(.connected, endpoint.connectedDetail(for: link))

      var reading = Reading(decoder: endpoint.makeDecoder())
      let outcome = read(link, &reading, &delivery)
      link.close()
      if case .stopped = outcome {
        publish(&reading)
        break
      }
      // Release what arrived before the end; a partial last line is counted as skipped.
      reading.items.removeAll(keepingCapacity: true)
      reading.decoder.finish(into: &reading.items)
      handle(&reading, &delivery)
      publish(&reading)
      switch outcome {
      case .stopped:
        break
      case .ended:
        let statistics = reading.decoder.statistics
        emit(
          .ended,
          "\(endpoint.receiverName): end of input, \(statistics.fixes) fixes, "
            + "\(statistics.skippedTotal) records skipped")
        continuation.finish()
        return
      case .failed(let error):
        continuation.finish(throwing: error)
        return
      case .lost(let reason):
        delivery.lost()
        outageReported = true
        emit(.disconnected, "lost \(endpoint.receiverName): \(reason)")
        // A connection that carried reports resets the backoff; one that was dropped before
        // any report (a gpsd that accepts and hangs up, a device node that does not work)
        // keeps growing it, so a flapping receiver is not hammered.
        failures = reading.sawReports ? 1 : failures + 1
        // A stop during the wait ends the loop through its condition.
        _ = waitBeforeRetry(failures)
      }
    }
    continuation.finish()
  }

  /// Announces retry number `attempt` and waits its delay; true when a stop came first.
  private func waitBeforeRetry(_ attempt: Int) -> Bool {
    let delay = retryPolicy.delay(beforeRetry: attempt)
    emit(.reconnecting, "retry \(attempt) in \(LiveFixDelivery.format(delay)) s")
    return stop.wait(for: delay, slice: timing.pollInterval)
  }

  /// Reads until a stop request, the end of input, a lost link or a fatal error.
  private func read(
    _ link: Endpoint.Link, _ reading: inout Reading, _ delivery: inout LiveFixDelivery
  ) -> Outcome {
    let clock = ContinuousClock()
    var buffer = [UInt8](repeating: 0, count: 8192)
    var lastInputAt = clock.now
    var heldSince: ContinuousClock.Instant?
    var silentSince: ContinuousClock.Instant?
    var descriptors = [
      pollfd(fd: link.descriptor, events: Int16(POLLIN), revents: 0),
      pollfd(fd: stop.wakeDescriptor, events: Int16(POLLIN), revents: 0),
    ]
    let busyLimit = timing.epochTimeout * 3
    while true {
      if stop.isRequested { return .stopped }
      let quiet = lastInputAt.duration(to: clock.now)
      var timeout = timing.pollInterval
      if reading.decoder.holdsEpoch {
        timeout = min(timeout, timing.epochTimeout - quiet)
      }
      if let silence = timing.silenceTimeout, silentSince == nil, !reading.receiverLost {
        timeout = min(timeout, silence - quiet)
      }
      descriptors[0].revents = 0
      descriptors[1].revents = 0
      let ready = poll(&descriptors, 2, ReaderStopSignal.milliseconds(max(.zero, timeout)))
      if ready < 0 {
        if errno == EINTR { continue }
        return .failed(
          .unusable(
            receiver: endpoint.receiverName, reason: "poll failed: \(SerialPort.message(errno))"))
      }
      if descriptors[1].revents != 0 || stop.isRequested { return .stopped }
      let events = Int32(descriptors[0].revents)
      if ready == 0 || events == 0 {
        // Quiet line. Quiet means poll found nothing to read, so a reader that was
        // descheduled in the middle of a burst finds the rest waiting and does not split an
        // epoch.
        let quiet = lastInputAt.duration(to: clock.now)
        if reading.decoder.holdsEpoch, quiet >= timing.epochTimeout {
          releaseHeldEpochs(&reading, &delivery)
          counters.update { $0.quietReleases += 1 }
          heldSince = nil
        }
        if let silence = timing.silenceTimeout, silentSince == nil, !reading.receiverLost,
          quiet >= silence
        {
          silentSince = lastInputAt
          counters.update { $0.silentEpisodes += 1 }
          emit(
            .silent,
            "no reports from \(endpoint.receiverName) for \(LiveFixDelivery.format(quiet)) s")
        }
        continue
      }
      if events & POLLNVAL != 0 {
        return .failed(
          .unusable(receiver: endpoint.receiverName, reason: "the descriptor was closed"))
      }
      let result = buffer.withUnsafeMutableBytes { link.read(into: $0) }
      switch result {
      case .wouldBlock:
        // A hang-up or error with nothing to read: never spin on it.
        guard events & (POLLHUP | POLLERR) != 0 else { continue }
        if link.endsAtEndOfInput { return .ended }
        return .lost(reason: link.hangUpReason)
      case .endOfInput:
        if link.endsAtEndOfInput { return .ended }
        return .lost(reason: link.endOfInputReason)
      case .failed(let reason):
        if link.endsAtEndOfInput {
          return .failed(.unusable(receiver: endpoint.receiverName, reason: reason))
        }
        return .lost(reason: reason)
      case .bytes(let count):
        let now = clock.now
        counters.update { $0.bytesRead += count }
        if let transcript {
          buffer.withUnsafeBytes {
            transcript.append(UnsafeRawBufferPointer(rebasing: $0[0..<count]))
          }
        }
        reading.items.removeAll(keepingCapacity: true)
        buffer.withUnsafeBytes { bytes in
          reading.decoder.feed(
            UnsafeRawBufferPointer(rebasing: bytes[0..<count]), into: &reading.items)
        }
        if let since = silentSince {
          silentSince = nil
          // A receiver that comes back only to be deactivated is reported as that.
          if !reading.items.contains(where: { if case .receiverLost = $0 { true } else { false } })
          {
            emit(
              .connected,
              "\(endpoint.receiverName): reports resumed after "
                + "\(LiveFixDelivery.format(since.duration(to: now))) s of silence")
          }
        }
        lastInputAt = now
        let released = handle(&reading, &delivery)
        if reading.decoder.holdsEpoch {
          if heldSince == nil || released { heldSince = now }
          if Endpoint.Decoder.releasesHeldEpochWhileBusy, let since = heldSince,
            since.duration(to: now) >= busyLimit
          {
            releaseHeldEpochs(&reading, &delivery)
            heldSince = nil
          }
        } else {
          heldSince = nil
        }
        publish(&reading)
      }
    }
  }

  private func releaseHeldEpochs(_ reading: inout Reading, _ delivery: inout LiveFixDelivery) {
    reading.items.removeAll(keepingCapacity: true)
    reading.decoder.releaseHeldEpochs(into: &reading.items)
    handle(&reading, &delivery)
    publish(&reading)
  }

  /// Acts on `reading.items`; returns whether any of them was a fix.
  @discardableResult
  private func handle(_ reading: inout Reading, _ delivery: inout LiveFixDelivery) -> Bool {
    var sawFix = false
    for item in reading.items {
      switch item {
      case .fix(let fix):
        sawFix = true
        reading.sawReports = true
        deliver(fix, &delivery)
      case .noFix:
        reading.sawReports = true
        if !delivery.inNoFixEpisode {
          delivery.inNoFixEpisode = true
          counters.update { $0.noFixEpisodes += 1 }
          emit(.noFix, "\(endpoint.receiverName): the receiver reports no fix")
        }
      case .receiverLost(let detail):
        reading.receiverLost = true
        delivery.lost()
        counters.update { $0.receiverLosses += 1 }
        emit(.disconnected, detail)
      case .receiverBack(let detail):
        reading.receiverLost = false
        delivery.connected()
        emit(.connected, detail)
      }
    }
    return sawFix
  }

  /// Adds the decoder's new counts to the shared counters.
  private func publish(_ reading: inout Reading) {
    let current = reading.decoder.statistics
    guard current != reading.published else { return }
    let published = reading.published
    counters.update { $0.statistics.add(current, since: published) }
    reading.published = current
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

  /// Blocks `SIGPIPE` on the calling thread, so that a write to a gpsd that just died fails
  /// with `EPIPE` instead of killing the process. `SIGPIPE` from `write` is directed at the
  /// writing thread, so this affects only the reader thread.
  private static func ignoreBrokenPipeOnThisThread() {
    var set = sigset_t()
    sigemptyset(&set)
    sigaddset(&set, SIGPIPE)
    pthread_sigmask(SIG_BLOCK, &set, nil)
  }
}
