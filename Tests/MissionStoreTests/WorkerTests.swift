import Foundation
import MissionTracking
import Testing

@testable import MissionStore

/// Workers in the store (schema 7): the migration of older files, one tracked mission per
/// worker (schema and typed errors), worker ids, devices, events by worker, watches and the
/// tracking lease per worker.
@Suite struct WorkerTests {
  private func accepted(
    _ database: MissionDatabase, _ id: String, worker: String, start: Bool = false
  ) throws {
    try database.apply(.accept, toMission: id, worker: worker, at: Fixtures.start)
    if start { try database.apply(.start, toMission: id, at: Fixtures.start) }
  }

  /// A schema-6 file (the old migrations only) holding an active mission with its fence
  /// state, track and distance: after the migration every mission past open belongs to
  /// `local`, the tracked one is still tracked (by `local`) and resumes where it stopped.
  @Test func aSchemaSixFileWithAnActiveMissionMigratesToLocal() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path()
    let fix = Fixtures.fix(3)
    do {
      let v6 = try MissionDatabase(
        path: path, configuration: StoreConfiguration(),
        migrations: Array(SchemaMigration.all.prefix(6)))
      try Fixtures.insertBeforeWorkers(
        [
          Fixtures.mission("open"), Fixtures.mission("tracked", state: .active),
          Fixtures.mission("done", state: .submitted),
        ], into: v6)
      try v6.withConnection { connection in
        try connection.execute(
          """
          INSERT INTO fence_state (mission_id, fence_id, inside, since_us, dwell_reported,
            updated_us) VALUES ('tracked', 'tracked', 1, \(microseconds(fix.time)), 0, 0);
          INSERT INTO track (mission_id, time_us, lat, lon, mode, source)
            VALUES ('tracked', \(microseconds(fix.time)), \(fix.coordinate.latitude),
              \(fix.coordinate.longitude), 3, 'test');
          INSERT INTO tracking_sessions (mission_id, travelled_m, updated_us)
            VALUES ('tracked', 42.5, 0);
          """)
        #expect(try connection.integer("PRAGMA user_version") == 6)
      }
      try v6.close()
    }
    let database = try MissionDatabase(path: path)
    #expect(try database.mission(id: "open")?.workerID == nil)
    #expect(try database.mission(id: "tracked")?.workerID == Worker.localID)
    #expect(try database.mission(id: "tracked")?.state == .active)
    #expect(try database.mission(id: "done")?.workerID == Worker.localID)
    #expect(try database.workers().map(\.id) == [Worker.localID])
    #expect(try database.trackedMissionIDs() == [Worker.localID: "tracked"])
    let resume = try #require(try database.resumePoint(ofMission: "tracked"))
    #expect(resume.fenceStates["tracked"]?.isInside == true)
    #expect(resume.lastDelivered?.time == fix.time)
    #expect(resume.travelledMeters == 42.5)
    #expect(try database.activeMission()?.mission.id == "tracked")
    // Still one tracked mission for local; another worker may start one beside it.
    try database.insert([Fixtures.mission("second"), Fixtures.mission("other")])
    try accepted(database, "second", worker: Worker.localID)
    #expect(
      throws: TrackingError.workerBusy(
        workerID: Worker.localID, tracked: "tracked", requested: "second")
    ) { try database.apply(.start, toMission: "second") }
    try database.putWorker(Worker(id: "bo"))
    try accepted(database, "other", worker: "bo", start: true)
    #expect(try database.trackedMissionIDs() == [Worker.localID: "tracked", "bo": "other"])
    #expect(try database.integrityCheck() == ["ok"])
  }

  /// The schema itself holds one tracked mission per worker: a raw second active row of the
  /// same worker is refused by the unique index, another worker's is stored.
  @Test func theSchemaRefusesASecondTrackedRowOfTheSameWorkerOnly() throws {
    let database = try MissionDatabase(path: ":memory:")
    func insert(_ id: String, worker: String, state: String = "active") throws {
      try database.withConnection { connection in
        try connection.execute(
          """
          INSERT INTO missions (id, lat, lon, radius_m, state, worker_id, updated_us)
          VALUES ('\(id)', 0, 0, 1, '\(state)', '\(worker)', 0)
          """)
      }
    }
    try insert("a1", worker: "a")
    #expect {
      try insert("a2", worker: "a", state: "arrived")
    } throws: { error in
      guard case StoreError.constraint(.unique, _, _) = error else { return false }
      return true
    }
    try insert("b1", worker: "b")
    try insert("a3", worker: "a", state: "accepted")
    #expect(try database.missionCount() == 3)
  }

  /// A second start for the same worker names the worker and the mission it tracks, through
  /// the engine's `commit` as through the one-shot `apply`; another worker's start succeeds;
  /// an accept naming an unknown worker names it and changes nothing.
  @Test func aSecondStartOfTheSameWorkerIsRefusedAnotherWorkersSucceeds() throws {
    let database = try MissionDatabase(path: ":memory:")
    try database.insert(["a", "b", "c"].map { Fixtures.mission($0) })
    try database.putWorker(Worker(id: "bo"))
    try database.putWorker(Worker(id: "cy"))
    try accepted(database, "a", worker: "bo", start: true)
    try accepted(database, "b", worker: "bo")
    let start = MissionTransition(
      missionID: "b", action: .start, from: .accepted, to: .active, time: Fixtures.start,
      workerID: "bo")
    #expect(throws: TrackingError.workerBusy(workerID: "bo", tracked: "a", requested: "b")) {
      try database.commit(start)
    }
    #expect(try database.mission(id: "b")?.state == .accepted)
    try accepted(database, "c", worker: "cy", start: true)
    #expect(try database.trackedMissionIDs() == ["bo": "a", "cy": "c"])
    try database.insert([Fixtures.mission("d")])
    #expect(throws: TrackingError.unknownWorker("nobody")) {
      try database.commit(
        MissionTransition(
          missionID: "d", action: .accept, from: .open, to: .accepted, time: Fixtures.start,
          workerID: "nobody"))
    }
    #expect(try database.mission(id: "d")?.state == .open)
    #expect(try database.transitions(ofMission: "d").isEmpty)
  }

  /// Worker ids follow `Identifier`: hostile ids are refused with a one-line error that
  /// does not repeat a 10 KB id; NFD and NFC name one worker.
  @Test(arguments: [
    "a\u{0}b", "a\u{1B}[2Jb", "line\nbreak", "   ", "", String(repeating: "w", count: 10_000),
  ])
  func hostileWorkerIdsAreRefused(id: String) throws {
    let database = try MissionDatabase(path: ":memory:")
    #expect {
      try database.putWorker(Worker(id: id))
    } throws: { error in
      guard case StoreError.invalidWorker = error else { return false }
      let text = "\(error)"
      return !text.contains("\n") && !text.contains("\u{1B}") && !text.contains("\u{0}")
        && text.utf8.count < 300
    }
    #expect {
      _ = try database.claimTracking(holder: "test", worker: id)
    } throws: { error in
      guard case StoreError.invalidWorker = error else { return false }
      return true
    }
    #expect(try database.workers().map(\.id) == [Worker.localID])
  }

  @Test func nfdAndNFCNameTheSameWorker() throws {
    let database = try MissionDatabase(path: ":memory:")
    try database.putWorker(Worker(id: "cafe\u{301}", name: "first"))
    try database.putWorker(Worker(id: "caf\u{E9}", name: "second"))
    #expect(try database.workers().map(\.id) == ["caf\u{E9}", Worker.localID])
    #expect(try database.worker("cafe\u{301}")?.name == "second")
    try database.insert([Fixtures.mission("m")])
    try database.apply(.accept, toMission: "m", worker: "cafe\u{301}")
    #expect(try database.mission(id: "m")?.workerID == "caf\u{E9}")
    #expect(try database.removeWorker("cafe\u{301}"))
    #expect(try database.worker("caf\u{E9}") == nil)
  }

  /// Devices: replaced with their worker, found by protocol and id, refused while another
  /// worker holds them, removed with their worker.
  @Test func devicesBelongToOneWorker() throws {
    let database = try MissionDatabase(path: ":memory:")
    let phone = WorkerDevice(ingestProtocol: .owntracks, deviceID: "bo/phone", secret: "s")
    try database.putWorker(Worker(id: "bo", name: "Bo", devices: [phone]))
    #expect(try database.device(.owntracks, id: "bo/phone")?.worker == "bo")
    #expect(try database.device(.owntracks, id: "bo/phone")?.device == phone)
    #expect(try database.device(.osmand, id: "bo/phone") == nil)
    #expect(
      throws: StoreError.deviceTaken(protocol: .owntracks, deviceID: "bo/phone", worker: "bo")
    ) { try database.putWorker(Worker(id: "cy", devices: [phone])) }
    #expect(try database.worker("cy") == nil)
    let tracker = WorkerDevice(ingestProtocol: .osmand, deviceID: "123")
    try database.putWorker(Worker(id: "bo", devices: [tracker]))
    #expect(try database.worker("bo") == Worker(id: "bo", devices: [tracker]))
    #expect(try database.device(.owntracks, id: "bo/phone") == nil)
    try database.putWorker(Worker(id: "cy", devices: [phone]))
    #expect(try database.removeWorker("bo"))
    #expect(try database.device(.osmand, id: "123") == nil)
    #expect(try database.removeWorker("bo") == false)
  }

  /// A worker with a tracked mission cannot be removed (the error names it), `local` never;
  /// once the mission is submitted the worker goes and its missions keep its id.
  @Test func aWorkerWithATrackedMissionIsNotRemoved() throws {
    let database = try MissionDatabase(path: ":memory:")
    try database.insert([Fixtures.mission("m")])
    try database.putWorker(Worker(id: "bo"))
    try accepted(database, "m", worker: "bo", start: true)
    #expect(throws: StoreError.workerTracking(worker: "bo", mission: "m")) {
      try database.removeWorker("bo")
    }
    #expect {
      try database.removeWorker(Worker.localID)
    } throws: { error in
      guard case StoreError.invalidWorker(Worker.localID, _) = error else { return false }
      return true
    }
    try database.apply(.submit, toMission: "m")
    #expect(try database.removeWorker("bo"))
    #expect(try database.mission(id: "m")?.workerID == "bo")
  }

  /// Every event is stored with its worker and read back as the engine wrote it (the line
  /// too); `events(ofWorker:)` filters, alone and with a mission.
  @Test func eventsKeepTheirWorkerAndFilterByIt() throws {
    let directory = try TemporaryDirectory()
    let database = try Fixtures.database(
      in: directory, missions: [Fixtures.mission("a"), Fixtures.mission("b")],
      configuration: StoreConfiguration(groupCommit: .immediate))
    try database.putWorker(Worker(id: "bo"))
    try accepted(database, "a", worker: "bo", start: true)
    try accepted(database, "b", worker: Worker.localID, start: true)
    var written: [TrackingEvent] = []
    for index in 0..<4 {
      let (mission, worker) = index % 2 == 0 ? ("a", "bo") : ("b", Worker.localID)
      var fixEvent = Fixtures.fixEvent(index, mission: mission)
      fixEvent.workerID = worker
      let enter = TrackingEvent(
        time: fixEvent.time, missionID: mission, workerID: worker,
        kind: .enter(fenceID: mission, distanceMeters: 3, initial: false))
      try database.record(
        TrackingBatch(
          missionID: mission, workerID: worker, events: [fixEvent, enter], fenceStates: [:],
          travelledMeters: 0))
      written += [fixEvent, enter]
    }
    let nearby = TrackingEvent(
      time: Fixtures.start, missionID: "a", workerID: "bo",
      kind: .nearby(watchID: "w1", distanceMeters: 12.25))
    try database.recordEvents([nearby])
    let reader = try MissionDatabase(path: directory.path())
    let ofBo = try reader.events(ofWorker: "bo").filter { $0.type != "state" }
    #expect(ofBo.map(\.event) == written.filter { $0.workerID == "bo" } + [nearby])
    #expect(ofBo.map(\.jsonLine) == ofBo.map(\.event.jsonLine))
    #expect(ofBo.last?.jsonLine.contains(#""worker_id":"bo","watch_id":"w1""#) == true)
    let local = try reader.events(ofMission: "b", ofWorker: Worker.localID)
    #expect(local.map(\.event.missionID).allSatisfy { $0 == "b" })
    #expect(local.count == 2 + 4)  // accept and start, then two fixes with their enters
    #expect(try reader.events(ofMission: "b", ofWorker: "bo").isEmpty)
    #expect(try reader.events(ofWorker: "nobody").isEmpty)
    #expect(
      try reader.events(ofWorker: "bo", afterSequence: ofBo[0].sequence, limit: 2).map(\.sequence)
        == Array(ofBo.dropFirst().prefix(2).map(\.sequence)))
    #expect {
      try database.recordEvents([written[0]])
    } throws: { error in
      guard case StoreError.invalidEvent = error else { return false }
      return true
    }
  }

  @Test func watchesAreStoredReplacedAndRemoved() throws {
    let directory = try TemporaryDirectory()
    let database = try Fixtures.database(in: directory)
    let watch = Watch(
      id: "w1", coordinate: try Coordinate(latitude: 59.3, longitude: 18.0), radiusMeters: 500,
      workerID: "bo")
    try database.saveWatch(watch)
    var moved = watch
    moved.radiusMeters = 0
    moved.state = nil
    try database.saveWatch(moved)
    try database.saveWatch(Watch(id: "w0", coordinate: watch.coordinate, radiusMeters: 1))
    #expect(try MissionDatabase(path: directory.path()).watches().map(\.id) == ["w0", "w1"])
    #expect(try database.watches().last == moved)
    #expect(try database.removeWatch(id: "w1"))
    #expect(try database.removeWatch(id: "w1") == false)
    for bad in [
      Watch(id: "x\u{0}", coordinate: watch.coordinate, radiusMeters: 1),
      Watch(id: "x", coordinate: watch.coordinate, radiusMeters: -1),
      Watch(id: "x", coordinate: watch.coordinate, radiusMeters: .nan),
    ] {
      #expect {
        try database.saveWatch(bad)
      } throws: { error in
        guard case StoreError.invalidWatch = error else { return false }
        return true
      }
    }
  }

  /// One tracking writer per worker: a second lease of the same worker (in NFC or NFD) is
  /// refused naming the worker and the holder; another worker's is granted beside it, also
  /// for ids that are not plain file names.
  @Test func theTrackingLeaseIsPerWorker() throws {
    let directory = try TemporaryDirectory()
    let database = try Fixtures.database(in: directory)
    let first = try database.claimTracking(holder: "missiontrack replay", worker: "caf\u{E9}")
    #expect {
      _ = try database.claimTracking(holder: "missiontrack track", worker: "cafe\u{301}")
    } throws: { error in
      guard case StoreError.trackingLeaseHeld(_, "caf\u{E9}", let holder) = error else {
        return false
      }
      return holder.contains("missiontrack replay") && holder.contains("pid \(getpid())")
    }
    let others = try ["bo", "../x/y", "\u{1F6B2}" + String(repeating: "é", count: 90), "local"]
      .map { try database.claimTracking(holder: "other", worker: $0) }
    #expect(Set(others.map(\.path)).count == 4)
    #expect(others.allSatisfy { URL(fileURLWithPath: $0.path).lastPathComponent.utf8.count < 255 })
    #expect(
      others.allSatisfy {
        URL(fileURLWithPath: $0.path).deletingLastPathComponent().path
          == URL(fileURLWithPath: directory.path()).deletingLastPathComponent().path
      })
    first.release()
    _ = try database.claimTracking(holder: "again", worker: "cafe\u{301}")
  }
}
