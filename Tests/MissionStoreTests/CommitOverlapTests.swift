import Foundation
import MissionTracking
import Testing

@testable import MissionStore

/// A commit holds the connection while it writes and syncs; recording a known mission's
/// events and the reads of committed rows that request threads make (a device, the change
/// feed, the event log's head, the webhooks) go on meanwhile, and a commit that fails puts
/// its events back ahead of those recorded while it ran.
@Suite struct CommitOverlapTests {
  private let holdBatches = StoreConfiguration(
    synchronous: .normal, busyTimeoutMilliseconds: 50,
    groupCommit: GroupCommitPolicy(maxEvents: 1_000_000, maxDelay: .seconds(3600)))

  /// How many events the commit under way holds (read under the recorder's lock).
  private func committing(_ database: MissionDatabase) -> Int {
    database.recording { database.committingCount }
  }

  @Test func recordingAndCommittedReadsGoOnWhileACommitRuns() throws {
    let directory = try TemporaryDirectory()
    let database = try Fixtures.database(
      in: directory, missions: [Fixtures.mission("m", state: .active)],
      configuration: holdBatches)
    try database.putWorker(
      Worker(id: "bo", devices: [WorkerDevice(ingestProtocol: .osmand, deviceID: "123")]))
    try database.record(Fixtures.fixEvent(0, mission: "m"))
    try database.flush()
    let head = try database.lastCommittedSequence()
    let token = try database.changes(after: nil).token
    // A commit long enough to be caught under way.
    let large = 150_000
    try database.record(contentsOf: (1...large).map { Fixtures.fixEvent($0, mission: "m") })
    let flushed = Shared<String?>(nil)
    let group = DispatchGroup()
    DispatchQueue.global().async(group: group) {
      do { try database.flush() } catch { flushed.update { $0 = "\(error)" } }
    }
    let deadline = Date().addingTimeInterval(30)
    while committing(database) == 0, Date() < deadline { usleep(100) }
    #expect(committing(database) == large)

    // None of these waits for the commit: it is still under way after all of them.
    try database.record(
      TrackingBatch(
        missionID: "m", events: [Fixtures.fixEvent(large + 1, mission: "m")], fenceStates: [:],
        travelledMeters: 1))
    #expect(try database.device(.osmand, id: "123")?.worker == "bo")
    #expect(try database.changes(after: token).missions.isEmpty)
    #expect(try database.lastCommittedSequence() == head)
    #expect(try database.webhooks().isEmpty)
    #expect(database.pendingEventCount == large + 1)
    #expect(committing(database) == large)

    group.wait()
    #expect(flushed.get() == nil)
    try database.flush()
    #expect(try database.track(ofMission: "m").count == large + 2)
    #expect(database.pendingEventCount == 0)
  }

  @Test func aCommitThatFailsKeepsItsEventsAheadOfThoseRecordedWhileItRan() throws {
    let directory = try TemporaryDirectory()
    var configuration = holdBatches
    configuration.busyTimeoutMilliseconds = 500
    let database = try Fixtures.database(
      in: directory, missions: [Fixtures.mission("m", state: .active)],
      configuration: configuration)
    let outside = FenceState(isInside: false, insideSince: nil, dwellReported: false)
    let inside = FenceState(isInside: true, insideSince: Fixtures.start, dwellReported: false)
    try database.record(
      TrackingBatch(
        missionID: "m", events: [0, 1].map { Fixtures.fixEvent($0, mission: "m") },
        fenceStates: ["m": outside], travelledMeters: 10))
    // Another connection holds the write lock: the commit waits for it, then fails as busy.
    let holder = try MissionDatabase(path: directory.path())
    try holder.withConnection { try $0.execute("BEGIN IMMEDIATE") }
    let failure = Shared<(any Error)?>(nil)
    let group = DispatchGroup()
    DispatchQueue.global().async(group: group) {
      do { try database.flush() } catch { failure.update { $0 = error } }
    }
    let deadline = Date().addingTimeInterval(30)
    while committing(database) == 0, Date() < deadline { usleep(100) }
    // Recorded while the commit waits.
    try database.record(
      TrackingBatch(
        missionID: "m", events: [Fixtures.fixEvent(2, mission: "m")],
        fenceStates: ["m": inside], travelledMeters: 20))
    group.wait()
    let error = failure.get()
    #expect(error.map { if case StoreError.busy = $0 { true } else { false } } == true)
    #expect(database.pendingEventCount == 3)
    try holder.withConnection { try $0.execute("ROLLBACK") }
    try database.flush()

    let times = (0..<3).map { Fixtures.fix($0).time }
    #expect(try database.track(ofMission: "m").map(\.time) == times)
    let logged = try database.committedEvents(afterSequence: 0, limit: 10)
    #expect(logged.map(\.event.time) == times)
    let resume = try #require(try database.resumePoint(ofMission: "m"))
    #expect(resume.fenceStates["m"]?.isInside == true)
    #expect(resume.travelledMeters == 20)
  }

  /// Recording a mission seen before takes no connection: it still refuses once the
  /// database is closed, and still reports a background commit that failed.
  @Test func theRecordersOwnPathRefusesAfterCloseAndReportsAFailedTimerCommit() throws {
    let directory = try TemporaryDirectory()
    let database = try Fixtures.database(
      in: directory, missions: [Fixtures.mission("m", state: .active)],
      configuration: StoreConfiguration(
        synchronous: .normal, busyTimeoutMilliseconds: 50,
        groupCommit: GroupCommitPolicy(maxEvents: 1000, maxDelay: .milliseconds(10))))
    func batch(_ index: Int) -> TrackingBatch {
      TrackingBatch(
        missionID: "m", events: [Fixtures.fixEvent(index, mission: "m")], fenceStates: [:],
        travelledMeters: Double(index))
    }
    let holder = try MissionDatabase(path: directory.path())
    try holder.withConnection { try $0.execute("BEGIN IMMEDIATE") }
    try database.record(batch(0))
    // The timer's commit waits 50 ms for the lock, fails as busy, and keeps the event.
    let deadline = Date().addingTimeInterval(30)
    while database.recording({ database.deferredError == nil }), Date() < deadline {
      usleep(1000)
    }
    #expect {
      try database.record(batch(1))
    } throws: { error in
      if case StoreError.busy = error { return true }
      return false
    }
    #expect(database.pendingEventCount == 1)
    try holder.withConnection { try $0.execute("ROLLBACK") }
    try database.record(batch(1))
    try database.close()
    #expect(throws: StoreError.closed(path: directory.path())) { try database.record(batch(2)) }
    #expect(throws: StoreError.closed(path: directory.path())) {
      try database.device(.osmand, id: "123")
    }
    let reopened = try MissionDatabase(path: directory.path())
    #expect(try reopened.track(ofMission: "m").count == 2)
  }

  /// A `:memory:` database has one connection (a second would open another, empty
  /// database): the committed reads answer from it, and see what it committed.
  @Test func anInMemoryDatabaseAnswersTheCommittedReadsFromItsOneConnection() throws {
    let database = try MissionDatabase(path: ":memory:")
    try database.insert([Fixtures.mission("m", state: .active)])
    try database.putWorker(
      Worker(id: "bo", devices: [WorkerDevice(ingestProtocol: .osmand, deviceID: "123")]))
    try database.record(Fixtures.fixEvent(0, mission: "m"))
    try database.flush()
    #expect(try database.device(.osmand, id: "123")?.worker == "bo")
    #expect(try database.worker("bo")?.devices.map(\.deviceID) == ["123"])
    #expect(try database.workers().map(\.id).contains("bo"))
    #expect(try database.changes(after: nil).missions.map(\.id) == ["m"])
    #expect(try database.lastCommittedSequence() == 1)
    #expect(try database.webhooks().isEmpty)
  }
}
