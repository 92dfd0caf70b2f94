import Foundation
import Testing

@testable import MissionService

/// `IdlePoll` on a descriptor of the test's own (a pipe, readable like a server thread's
/// epoll descriptor when it has work): it polls only after a quick gap and
/// only for a lone connection, stops as soon as the descriptor has work, and otherwise gives
/// up at the end of its window. One synchronous test, so every call is on one thread (the
/// pace is the thread's).
@Suite struct IdlePollTests {
  @Test func pollsOnlyAfterAQuickGapForALoneConnectionAndStopsAtWork() throws {
    var ends: [Int32] = [-1, -1]
    try #require(pipe(&ends) == 0)
    let (epoll, work) = (ends[0], ends[1])
    defer {
      close(epoll)
      close(work)
    }
    let poll = IdlePoll(window: .milliseconds(20))
    func timed(_ body: () -> Void) -> Double {
      let start = Date()
      body()
      return Date().timeIntervalSince(start)
    }
    func counts(_ poll: IdlePoll) -> [Int] { [poll.counts.caught, poll.counts.missed] }

    // A gap of 100 ms (over twice the window): no poll.
    poll.answered(epollDescriptor: epoll, alone: false)
    usleep(100_000)
    poll.requestStarted()
    poll.answered(epollDescriptor: epoll, alone: true)
    #expect(counts(poll) == [0, 0])

    // A quick gap, nothing comes: the whole window, missed.
    poll.requestStarted()
    let missed = timed { poll.answered(epollDescriptor: epoll, alone: true) }
    #expect(counts(poll) == [0, 1])
    #expect(missed >= 0.020)

    // Quick again (the last gap was about one window): work is waiting, caught at once.
    poll.requestStarted()
    #expect(write(work, "x", 1) == 1)
    let caught = timed { poll.answered(epollDescriptor: epoll, alone: true) }
    #expect(counts(poll) == [1, 1])
    #expect(caught < 0.020)

    // Quick, but the thread has other connections: no poll.
    poll.requestStarted()
    poll.answered(epollDescriptor: epoll, alone: false)
    #expect(counts(poll) == [1, 1])

    // A window of zero never polls.
    let never = IdlePoll(window: .zero)
    never.requestStarted()
    never.answered(epollDescriptor: epoll, alone: true)
    #expect(counts(never) == [0, 0])
  }
}
