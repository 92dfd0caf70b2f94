import Foundation
import Synchronization
import Testing

@testable import MissionService

/// `IdlePoll` on a descriptor of the test's own (a pipe, readable like a server thread's
/// epoll descriptor when it has work): it polls only after a quick gap and
/// only for a lone connection, stops as soon as the descriptor has work, and otherwise gives
/// up at the end of its window. Each test calls it from one thread (the pace is the
/// thread's).
@Suite struct IdlePollTests {
  /// A pipe's read end (what the poll watches) and write end (what gives it work).
  private func pipeEnds() throws -> (Int32, Int32) {
    var ends: [Int32] = [-1, -1]
    try #require(pipe(&ends) == 0)
    return (ends[0], ends[1])
  }

  @Test func pollsOnlyAfterAQuickGapForALoneConnectionAndStopsAtWork() throws {
    let (epoll, work) = try pipeEnds()
    defer {
      close(epoll)
      close(work)
    }
    // Never counted as preempted: this test is about the other rules, on a machine that may
    // be busy (the next test covers a lost core).
    let poll = IdlePoll(window: .milliseconds(20), preemptedAfter: .seconds(60))
    func timed(_ body: () -> Void) -> Double {
      let start = Date()
      body()
      return Date().timeIntervalSince(start)
    }
    func counts(_ poll: IdlePoll) -> [Int] {
      [poll.counts.caught, poll.counts.missed, poll.counts.preempted]
    }

    // A gap of 100 ms (over twice the window): no poll.
    poll.answered(epollDescriptor: epoll, alone: false)
    usleep(100_000)
    poll.requestStarted()
    poll.answered(epollDescriptor: epoll, alone: true)
    #expect(counts(poll) == [0, 0, 0])

    // A quick gap, nothing comes: the whole window, missed.
    poll.requestStarted()
    let missed = timed { poll.answered(epollDescriptor: epoll, alone: true) }
    #expect(counts(poll) == [0, 1, 0])
    #expect(missed >= 0.020)

    // Quick again (the last gap was about one window): work is waiting, caught at once.
    poll.requestStarted()
    #expect(write(work, "x", 1) == 1)
    let caught = timed { poll.answered(epollDescriptor: epoll, alone: true) }
    #expect(counts(poll) == [1, 1, 0])
    #expect(caught < 0.020)

    // Quick, but the thread has other connections: no poll.
    poll.requestStarted()
    poll.answered(epollDescriptor: epoll, alone: false)
    #expect(counts(poll) == [1, 1, 0])

    // A window of zero never polls.
    let never = IdlePoll(window: .zero)
    never.requestStarted()
    never.answered(epollDescriptor: epoll, alone: true)
    #expect(counts(never) == [0, 0, 0])
  }

  /// A poll that loses its core to other work (busy threads, two per core) stops, and the
  /// thread does not poll again for a second, even with a quick gap and work waiting.
  @Test func aPollThatLosesItsCoreStopsAndPausesPolling() throws {
    let (epoll, work) = try pipeEnds()
    defer {
      close(epoll)
      close(work)
    }
    let busy = Atomic<Bool>(true)
    for _ in 0..<(2 * ProcessInfo.processInfo.activeProcessorCount) {
      Thread { while busy.load(ordering: .relaxed) {} }.start()
    }
    defer { busy.store(false, ordering: .relaxed) }

    let poll = IdlePoll(window: .milliseconds(500))
    let results = Mutex<[[Int]]>([])
    let done = DispatchSemaphore(value: 0)
    Thread {
      defer { done.signal() }
      func counts() -> [Int] { [poll.counts.caught, poll.counts.missed, poll.counts.preempted] }
      poll.answered(epollDescriptor: epoll, alone: false)
      poll.requestStarted()
      // Quick gap, nothing comes, and every core has busy threads to give way to.
      poll.answered(epollDescriptor: epoll, alone: true)
      let lost = counts()
      // Quick again and work waiting, but polling is paused.
      poll.requestStarted()
      _ = write(work, "x", 1)
      poll.answered(epollDescriptor: epoll, alone: true)
      results.withLock { $0 = [lost, counts()] }
    }.start()
    done.wait()
    #expect(results.withLock { $0 } == [[0, 0, 1], [0, 0, 1]])
  }
}
