import Foundation
import MissionTracking

/// One run of a raw NMEA source: the body of its reader thread, from the first open to the
/// stop request, the end of a pipe, or giving up under the retry policy.
///
/// `Sendable` because every stored property is immutable and `Sendable`; the mutable state of
/// the run (the port, the decoder, the delivery bookkeeping) lives in locals of `run()`, which
/// executes on exactly one thread.
final class NMEADeviceSession: Sendable {
  struct Configuration: Sendable {
    var path: String
    var baud: Int?
    var retryPolicy: RetryPolicy
    var epochTimeout: Duration
    var pollInterval: Duration
  }

  let configuration: Configuration
  let continuation: AsyncThrowingStream<SourceReport, any Error>.Continuation
  let stop: ReaderStopSignal
  let counters: NMEADeviceSharedCounters

  init(
    configuration: Configuration,
    continuation: AsyncThrowingStream<SourceReport, any Error>.Continuation,
    stop: ReaderStopSignal, counters: NMEADeviceSharedCounters
  ) {
    self.configuration = configuration
    self.continuation = continuation
    self.stop = stop
    self.counters = counters
  }

  private var path: String { configuration.path }

  /// The decoder and what of its statistics was already added to the shared counters.
  private struct Decoding {
    var decoder: NMEADecoder
    var published = TraceStatistics()
    var fixes: [Fix] = []
  }

  /// How reading one open path ended.
  private enum Outcome {
    /// The consumer stopped.
    case stopped
    /// End of a pipe, standard input or file.
    case ended
    /// A terminal went away; `sawData` tells whether it delivered anything first.
    case lost(reason: String, sawData: Bool)
    /// A fatal error.
    case failed(TraceError)
  }

  /// Opens, reads, reopens, until stopped or ended. Finishes the stream on the way out.
  func run() {
    var decoding = Decoding(decoder: makeDecoder())
    var delivery = LiveFixDelivery(outageSubject: path)
    var failures = 0
    var hasOpened = false
    var outageReported = false
    let policy = configuration.retryPolicy

    while !stop.isRequested {
      let port: SerialPort
      do {
        port = try SerialPort.open(path: path, baud: configuration.baud)
      } catch {
        guard error.isTransient else {
          continuation.finish(throwing: TraceError(file: path, reason: error.reason))
          return
        }
        failures += 1
        counters.update { $0.failedOpenAttempts += 1 }
        if !outageReported {
          outageReported = true
          emit(.disconnected, "\(path): \(error.reason)")
        }
        if let limit = policy.maximumAttempts, failures >= limit {
          continuation.finish(
            throwing: TraceError(
              file: path, reason: "\(error.reason) (gave up after \(failures) attempts)"))
          return
        }
        let delay = policy.delay(beforeRetry: failures)
        emit(.reconnecting, "retry \(failures) in \(LiveFixDelivery.format(delay)) s")
        if stop.wait(for: delay, slice: configuration.pollInterval) { break }
        continue
      }

      counters.update {
        $0.opens += 1
        if hasOpened { $0.reopens += 1 }
      }
      outageReported = false
      // A reopen after fixes were delivered: the next fix closes a gap.
      delivery.connected()
      hasOpened = true
      emit(.connected, describe(port))

      let outcome = readUntilStoppedOrEnded(port, &decoding, &delivery)
      port.close()
      switch outcome {
      case .stopped:
        publish(&decoding)
        continuation.finish()
        return
      case .ended:
        decoding.fixes.removeAll(keepingCapacity: true)
        try? decoding.decoder.finish(into: &decoding.fixes)
        for fix in decoding.fixes { deliver(fix, &delivery) }
        publish(&decoding)
        let statistics = decoding.decoder.statistics
        emit(
          .ended,
          "\(path): end of input, \(statistics.fixes) fixes, "
            + "\(statistics.skippedTotal) sentences skipped")
        continuation.finish()
        return
      case .failed(let error):
        publish(&decoding)
        continuation.finish(throwing: error)
        return
      case .lost(let reason, let sawData):
        // Release what the device sent before it went; a partial last line is counted as
        // skipped. The next open starts a fresh decoder.
        decoding.fixes.removeAll(keepingCapacity: true)
        try? decoding.decoder.finish(into: &decoding.fixes)
        for fix in decoding.fixes { deliver(fix, &delivery) }
        publish(&decoding)
        decoding = Decoding(decoder: makeDecoder())
        delivery.lost()
        outageReported = true
        emit(.disconnected, "lost \(path): \(reason)")
        // An open that delivered data resets the backoff; one that failed at once (a device
        // node that exists but does not work) keeps growing it.
        failures = sawData ? 1 : failures + 1
        let delay = policy.delay(beforeRetry: failures)
        emit(.reconnecting, "retry \(failures) in \(LiveFixDelivery.format(delay)) s")
        if stop.wait(for: delay, slice: configuration.pollInterval) { break }
      }
    }
    publish(&decoding)
    continuation.finish()
  }

  private func makeDecoder() -> NMEADecoder {
    NMEADecoder.live(file: path, source: "nmea")
  }

  /// The `connected` detail: the path, what it is and its speed.
  private func describe(_ port: SerialPort) -> String {
    switch port.kind {
    case .terminal:
      let speed = port.baud.map { "\($0) baud" } ?? "a non-standard speed"
      return "\(path) at \(speed)"
    case .pipe: return "named pipe \(path)"
    case .standardInput: return "standard input"
    case .other: return "file \(path)"
    }
  }

  /// Reads until a stop request, the end of input, or a lost terminal.
  private func readUntilStoppedOrEnded(
    _ port: SerialPort, _ decoding: inout Decoding, _ delivery: inout LiveFixDelivery
  ) -> Outcome {
    let clock = ContinuousClock()
    var buffer = [UInt8](repeating: 0, count: 4096)
    var lastInputAt = clock.now
    var sawData = false
    var descriptors = [
      pollfd(fd: port.descriptor, events: Int16(POLLIN), revents: 0),
      pollfd(fd: stop.wakeDescriptor, events: Int16(POLLIN), revents: 0),
    ]
    while true {
      if stop.isRequested { return .stopped }
      var timeout = configuration.pollInterval
      if decoding.decoder.hasOpenEpochs {
        let remaining = configuration.epochTimeout - lastInputAt.duration(to: clock.now)
        timeout = max(.zero, min(timeout, remaining))
      }
      descriptors[0].revents = 0
      descriptors[1].revents = 0
      let ready = poll(&descriptors, 2, ReaderStopSignal.milliseconds(timeout))
      if ready < 0 {
        if errno == EINTR { continue }
        return .failed(
          TraceError(file: path, reason: "poll failed: \(SerialPort.message(errno))"))
      }
      if descriptors[1].revents != 0 || stop.isRequested { return .stopped }
      let events = Int32(descriptors[0].revents)
      if ready == 0 || events == 0 {
        // Quiet line: release the held epochs once it has been quiet for the epoch timeout.
        // Quiet means poll found nothing to read, so a reader that was descheduled in the
        // middle of a burst finds the rest waiting and does not split the epoch.
        if decoding.decoder.hasOpenEpochs,
          lastInputAt.duration(to: clock.now) >= configuration.epochTimeout
        {
          decoding.fixes.removeAll(keepingCapacity: true)
          decoding.decoder.releaseOpenEpochs(into: &decoding.fixes)
          counters.update { $0.idleReleases += 1 }
          for fix in decoding.fixes { deliver(fix, &delivery) }
          publish(&decoding)
        }
        continue
      }
      if events & POLLNVAL != 0 {
        return .failed(TraceError(file: path, reason: "the descriptor was closed"))
      }
      let result = buffer.withUnsafeMutableBytes { port.read(into: $0) }
      switch result {
      case .wouldBlock:
        // A hang-up or error with nothing to read: never spin on it.
        guard events & (POLLHUP | POLLERR) != 0 else { continue }
        if port.kind == .terminal {
          return .lost(reason: "the device hung up", sawData: sawData)
        }
        return .ended
      case .bytes(let count):
        sawData = true
        lastInputAt = clock.now
        counters.update { $0.bytesRead += count }
        buffer.withUnsafeBytes { bytes in
          decode(UnsafeRawBufferPointer(rebasing: bytes[0..<count]), &decoding, &delivery)
        }
        publish(&decoding)
      case .endOfInput:
        if port.kind == .terminal {
          return .lost(reason: "end of input (device closed or unplugged)", sawData: sawData)
        }
        return .ended
      case .failed(let reason):
        if port.kind == .terminal { return .lost(reason: reason, sawData: sawData) }
        return .failed(TraceError(file: path, reason: reason))
      }
    }
  }

  /// Feeds `bytes` to the decoder one line at a time, so a `no_fix` status lands between the
  /// fixes before it and the fixes after it.
  private func decode(
    _ bytes: UnsafeRawBufferPointer, _ decoding: inout Decoding, _ delivery: inout LiveFixDelivery
  ) {
    guard let base = bytes.baseAddress else { return }
    var start = 0
    while start < bytes.count {
      var end = bytes.count
      if let newline = memchr(base + start, 0x0A, bytes.count - start) {
        end = UnsafeRawPointer(newline) - base + 1
      }
      let noFixBefore = decoding.decoder.statistics.skipped["no fix"] ?? 0
      decoding.fixes.removeAll(keepingCapacity: true)
      // Lenient decoding never throws: bad sentences are counted in its statistics.
      try? decoding.decoder.decode(
        UnsafeRawBufferPointer(rebasing: bytes[start..<end]), into: &decoding.fixes)
      for fix in decoding.fixes { deliver(fix, &delivery) }
      if decoding.decoder.statistics.skipped["no fix"] ?? 0 > noFixBefore {
        // Fixes of epochs before this no-fix one come first, so they do not end the
        // episode this sentence starts.
        decoding.fixes.removeAll(keepingCapacity: true)
        decoding.decoder.releaseEarlierEpochs(into: &decoding.fixes)
        for fix in decoding.fixes { deliver(fix, &delivery) }
        if !delivery.inNoFixEpisode {
          delivery.inNoFixEpisode = true
          counters.update { $0.noFixEpisodes += 1 }
          emit(.noFix, "the receiver at \(path) reports no fix")
        }
      }
      start = end
    }
  }

  /// Adds the decoder's new counts to the shared counters.
  private func publish(_ decoding: inout Decoding) {
    let current = decoding.decoder.statistics
    guard current != decoding.published else { return }
    let published = decoding.published
    counters.update { $0.statistics.add(current, since: published) }
    decoding.published = current
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
