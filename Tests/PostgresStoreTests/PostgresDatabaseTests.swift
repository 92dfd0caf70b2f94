import Foundation
import MissionCatalog
import MissionFiles
import MissionTracking
import PostgresTestSupport
import Testing

@testable import PostgresStore

/// What only the PostgreSQL store does: its schema, two nodes on one database, typed errors,
/// bulk import, PostGIS.
@Suite(
  .enabled(
    if: PostgresFixture.skipReason == nil,
    "PostgreSQL 15 + PostGIS 3 are not installed (Tools/setup): PostgreSQL tests skipped"))
struct PostgresDatabaseTests {
  @Test func anAcceptNamingAnUnknownWorkerIsRefused() async throws {
    let store = try PostgresDatabase(uri: try PostgresFixture.database())
    try store.insert([Fixtures.mission("m1")])
    #expect(throws: TrackingError.unknownWorker("nobody")) {
      try store.commit(Fixtures.transition("m1", .accept, .open, .accepted, worker: "nobody"))
    }
    #expect(try store.mission("m1")?.state == .open)
  }

  @Test func aSecondNodeCannotStartASecondMissionOfTheSameWorker() async throws {
    let uri = try PostgresFixture.database()
    let nodeA = try PostgresDatabase(uri: uri)
    let nodeB = try PostgresDatabase(uri: uri)
    try nodeA.putWorker(Worker(id: "w1"))
    try nodeA.insert([Fixtures.mission("m1"), Fixtures.mission("m2")])
    for id in ["m1", "m2"] {
      try nodeA.commit(Fixtures.transition(id, .accept, .open, .accepted, worker: "w1"))
    }
    try nodeA.commit(Fixtures.transition("m1", .start, .accepted, .active, worker: "w1"))
    #expect(throws: TrackingError.workerBusy(workerID: "w1", tracked: "m1", requested: "m2")) {
      try nodeB.commit(Fixtures.transition("m2", .start, .accepted, .active, worker: "w1"))
    }
    // Compare-and-set across nodes: B's view of m1 is stale.
    #expect(throws: TrackingError.changedElsewhere(missionID: "m1", state: .active)) {
      try nodeB.commit(Fixtures.transition("m1", .start, .accepted, .active, worker: "w1"))
    }
  }

  /// Each node keeps its phones' registrations until this number moves (`serve`'s
  /// `DeviceRegistrations`): every change to a worker's devices on one node moves it for the
  /// other, and nothing else does.
  @Test func aChangeToDevicesOnOneNodeMovesTheRegistryVersionForTheOther() async throws {
    let uri = try PostgresFixture.database()
    let nodeA = try PostgresDatabase(uri: uri)
    let nodeB = try PostgresDatabase(uri: uri)
    let start = try nodeB.deviceRegistryVersion()
    try nodeA.putWorker(Worker(id: "w"))
    #expect(try nodeB.deviceRegistryVersion() == start)
    let phone = { (secret: String) in
      Worker(
        id: "w",
        devices: [WorkerDevice(ingestProtocol: .osmand, deviceID: "p1", secret: secret)])
    }
    try nodeA.putWorker(phone("s1"))
    let registered = try nodeB.deviceRegistryVersion()
    #expect(registered > start)
    try nodeA.putWorker(phone("s2"))
    let changed = try nodeB.deviceRegistryVersion()
    #expect(changed > registered)
    #expect(try nodeA.removeWorker("w"))
    #expect(try nodeB.deviceRegistryVersion() > changed)
  }

  @Test func twoNodesRegisteringOneDeviceAtOnceGiveItToOneWorker() async throws {
    let uri = try PostgresFixture.database()
    let nodes = [try PostgresDatabase(uri: uri), try PostgresDatabase(uri: uri)]
    for round in 0..<40 {
      let device = WorkerDevice(ingestProtocol: .osmand, deviceID: "phone-\(round)")
      let failures = await withTaskGroup(of: (String, (any Error)?).self) { group in
        for (node, worker) in zip(nodes, ["a", "b"]) {
          group.addTask {
            do {
              try node.putWorker(Worker(id: worker, devices: [device]))
              return (worker, nil)
            } catch {
              return (worker, error)
            }
          }
        }
        return await group.reduce(into: [String: any Error]()) { failures, outcome in
          if let error = outcome.1 { failures[outcome.0] = error }
        }
      }
      // One worker has the device; the other is refused naming it, not with a raw error.
      let (loser, error) = try #require(failures.first, "round \(round): both registered it")
      try #require(failures.count == 1, "round \(round): \(failures)")
      let winner = loser == "a" ? "b" : "a"
      #expect(
        error as? WorkerRefusal
          == .deviceTaken(protocol: .osmand, deviceID: device.deviceID, worker: winner),
        "round \(round): \(error)")
    }
  }

  @Test func aResentBatchStoresNothingTwice() async throws {
    let store = try PostgresDatabase(uri: try PostgresFixture.database())
    try store.insert([Fixtures.mission("m1", state: .active)])
    let batch = TrackingBatch(
      missionID: "m1", events: (0..<5).map { Fixtures.fixEvent($0, mission: "m1") },
      fenceStates: [:], travelledMeters: 44)
    try store.record(batch)
    try store.record(batch)
    #expect(try store.track(ofMission: "m1") == (0..<5).map(Fixtures.fix))
    let stored = try store.events(ofMission: "m1")
    #expect(stored.map(\.event) == batch.events)
    #expect(stored.map(\.sequence) == stored.map(\.sequence).sorted())
  }

  /// A resent fix in a group fails the track's `COPY`: the whole group is recorded again
  /// with the insert that skips stored fixes, so the other mission's batch is not lost and
  /// nothing is stored twice.
  @Test func aResentBatchInAGroupLeavesTheOthersRecorded() async throws {
    let store = try PostgresDatabase(uri: try PostgresFixture.database())
    try store.insert([
      Fixtures.mission("m1", state: .active), Fixtures.mission("m2", state: .active, worker: "w2"),
    ])
    func batch(_ mission: String, _ fixes: Range<Int>) -> TrackingBatch {
      TrackingBatch(
        missionID: mission, workerID: mission == "m2" ? "w2" : Worker.localID,
        events: fixes.map { Fixtures.fixEvent($0, mission: mission) }, fenceStates: [:],
        travelledMeters: Double(fixes.upperBound))
    }
    try store.record(batch("m1", 0..<3))
    // Through the protocol, as the engine calls it: this store's own group record.
    let tracking: any TrackingStore = store
    let results = await tracking.record(contentsOf: [batch("m2", 0..<2), batch("m1", 2..<5)])
    #expect(results.map { $0 == nil } == [true, true])
    #expect(try store.track(ofMission: "m1") == (0..<5).map(Fixtures.fix))
    #expect(try store.track(ofMission: "m2") == (0..<2).map(Fixtures.fix))
    #expect(
      try store.events(ofMission: "m1").map(\.event)
        == (0..<5).map { Fixtures.fixEvent($0, mission: "m1") })
    #expect(
      try store.events(ofMission: "m2").map(\.event)
        == (0..<2).map { Fixtures.fixEvent($0, mission: "m2") })
  }

  /// Two deciders of one session (DESIGN §10): a batch decided from the version the store
  /// holds is recorded and moves it on; one decided from an older version records nothing.
  @Test func aBatchDecidedFromAnOlderVersionRecordsNothing() async throws {
    let store = try PostgresDatabase(uri: try PostgresFixture.database())
    try store.insert([Fixtures.mission("m1", state: .active)])
    func batch(_ fixes: Range<Int>, basedOn version: Int64) -> TrackingBatch {
      TrackingBatch(
        missionID: "m1", events: fixes.map { Fixtures.fixEvent($0, mission: "m1") },
        fenceStates: [:], travelledMeters: Double(fixes.upperBound), basedOnVersion: version)
    }
    try store.record(batch(0..<3, basedOn: 0))
    #expect(throws: TrackingError.decidedElsewhere(missionID: "m1", workerID: "local")) {
      try store.record(batch(3..<6, basedOn: 0))
    }
    #expect(try store.track(ofMission: "m1") == (0..<3).map(Fixtures.fix))
    #expect(try store.resumePoint(ofMission: "m1")?.version == 1)
    try store.record(batch(3..<6, basedOn: 1))
    #expect(try store.track(ofMission: "m1") == (0..<6).map(Fixtures.fix))
    let resume = try store.resumePoint(ofMission: "m1")
    #expect(resume?.version == 2 && resume?.travelledMeters == 6)
  }

  /// Many workers' batches in one transaction (`record(contentsOf:)`): each mission is
  /// refused on its own, and a mission's consecutive batches move its version by their
  /// number.
  @Test func manyMissionsRecordInOneTransactionAndAreRefusedOneByOne() async throws {
    let uri = try PostgresFixture.database()
    let store = try PostgresDatabase(uri: uri)
    try store.insert([
      Fixtures.mission("m1", state: .active), Fixtures.mission("m2", state: .arrived, worker: "w2"),
      Fixtures.mission("m3", state: .accepted),
    ])
    func batch(_ mission: String, _ fixes: Range<Int>, basedOn version: Int64) -> TrackingBatch {
      let rejected = TrackingEvent(
        time: Fixtures.fix(fixes.lowerBound).time, missionID: mission,
        workerID: Worker.localID, kind: .rejected(reason: "accuracy", count: 2))
      return TrackingBatch(
        missionID: mission, workerID: mission == "m2" ? "w2" : Worker.localID,
        events: fixes.map { Fixtures.fixEvent($0, mission: mission) } + [rejected],
        fenceStates: [
          mission: FenceState(isInside: fixes.lowerBound > 0, dwellReported: false)
        ],
        travelledMeters: Double(fixes.upperBound), basedOnVersion: version)
    }
    try store.record(batch("m1", 0..<3, basedOn: 0))
    let group = [
      batch("m1", 3..<6, basedOn: 0), batch("m2", 0..<2, basedOn: 0),
      batch("m2", 2..<4, basedOn: 1), batch("m3", 0..<1, basedOn: 0),
      batch("m9", 0..<1, basedOn: 0), batch("m2", 4..<5, basedOn: 5),
    ]
    let results = await (store as any TrackingStore).record(contentsOf: group)
    #expect(
      results.map { $0 as? TrackingError } == [
        .decidedElsewhere(missionID: "m1", workerID: "local"), nil, nil,
        .changedElsewhere(missionID: "m3", state: .accepted), .unknownMission("m9"),
        .decidedElsewhere(missionID: "m2", workerID: "w2"),
      ])
    #expect(results[1] == nil && results[2] == nil)
    #expect(try store.track(ofMission: "m1") == (0..<3).map(Fixtures.fix))
    #expect(try store.track(ofMission: "m2") == (0..<4).map(Fixtures.fix))
    #expect(try store.track(ofMission: "m3").isEmpty)
    #expect(try store.events(ofMission: "m2").map(\.event) == group[1].events + group[2].events)
    let resume = try #require(try store.resumePoint(ofMission: "m2"))
    #expect(resume.version == 2 && resume.travelledMeters == 4)
    #expect(resume.fenceStates == ["m2": FenceState(isInside: true)])
    #expect(try store.resumePoint(ofMission: "m1")?.version == 1)
    let rejections = try PostgresFixture.cluster().sql(
      "SELECT mission_id || ':' || count FROM ingest_rejections ORDER BY mission_id",
      database: PostgresTestCluster.databaseName(in: uri)
    ).split(whereSeparator: \.isNewline)
    #expect(rejections == ["m1:2", "m2:4"])
  }

  /// A node asks once which of its sessions moved on elsewhere: only those come back, read
  /// as `resumePoint` reads one.
  @Test func onlySessionsAtAnotherVersionAreReadBack() async throws {
    let store = try PostgresDatabase(uri: try PostgresFixture.database())
    try store.insert([
      Fixtures.mission("m1", state: .active), Fixtures.mission("m2", state: .active, worker: "w2"),
    ])
    try store.record(
      TrackingBatch(
        missionID: "m1", events: (0..<3).map { Fixtures.fixEvent($0, mission: "m1") },
        fenceStates: ["m1": FenceState(isInside: true)], travelledMeters: 22, basedOnVersion: 0))
    // Through the protocol: the engine's call reaches this store's own reading.
    let tracking: any TrackingStore = store
    // Asked at all only because nodes share it (SQLite's sessions are one process's).
    #expect(tracking.sessionsAreShared)
    #expect(try await tracking.resumePoints(ofSessionsOtherThan: [:]).isEmpty)
    #expect(try await tracking.resumePoints(ofSessionsOtherThan: ["m1": 1, "m2": 0]).isEmpty)
    let stale = try await tracking.resumePoints(
      ofSessionsOtherThan: ["m1": 0, "m2": 0, "m9": 4])
    #expect(Array(stale.keys) == ["m1"])
    let resume = try #require(stale["m1"] ?? nil)
    #expect(resume == (try store.resumePoint(ofMission: "m1")))
    #expect(resume.version == 1 && resume.lastDelivered == Fixtures.fix(2))
    #expect(
      resume.travelledMeters == 22 && resume.fenceStates == ["m1": FenceState(isInside: true)])
  }

  /// Group commit: a flush writes its durability mark only when a commit did not wait for
  /// the disk since the last one.
  @Test func aFlushWaitsForTheDiskOnlyAfterARecord() async throws {
    let uri = try PostgresFixture.database()
    let store = try PostgresDatabase(uri: uri)
    try store.insert([Fixtures.mission("m1", state: .active)])
    func marks() throws -> String {
      try PostgresFixture.cluster().sql(
        "SELECT count(*) || ':' || coalesce(max(marked)::text, '') FROM durability_marks",
        database: PostgresTestCluster.databaseName(in: uri)
      ).trimmingCharacters(in: .whitespacesAndNewlines)
    }
    try store.flush()
    #expect(try marks() == "0:")
    try store.record(
      TrackingBatch(
        missionID: "m1", events: [Fixtures.fixEvent(0, mission: "m1")], fenceStates: [:],
        travelledMeters: 0))
    try store.flush()
    let first = try marks()
    #expect(first.hasPrefix("1:"))
    try store.flush()
    #expect(try marks() == first)
  }

  @Test func aMissionImportedInATrackingStateBelongsToLocal() async throws {
    let store = try PostgresDatabase(uri: try PostgresFixture.database())
    try store.insert([Fixtures.mission("m1", state: .active), Fixtures.mission("m2")])
    #expect(try store.mission("m1")?.workerID == "local")
    #expect(try store.mission("m2")?.workerID == nil)
    try store.commit(Fixtures.transition("m2", .accept, .open, .accepted))
    #expect(
      throws: TrackingError.workerBusy(workerID: "local", tracked: "m1", requested: "m2")
    ) {
      try store.commit(Fixtures.transition("m2", .start, .accepted, .active))
    }
  }

  @Test func aBulkImportIsAllOrNothingAndNamesTheLine() async throws {
    let store = try PostgresDatabase(uri: try PostgresFixture.database())
    let csv = """
      id,lat,lon,title,reward,currency,deadline,state,colour
      a1,59.33,18.07,"Shop\tfront, \\\\ north",350,SEK,2026-05-01T12:00:00Z,open,red
      a2,-33.9,151.2,Opera,,,,accepted,
      """
    let records = try MissionFileReader.records(Array(csv.utf8), format: .csv, file: "m.csv")
    let summary = try store.importMissions(records)
    #expect(summary == PostgresImportSummary(imported: 2, new: 2))
    let first = try #require(try store.mission("a1"))
    #expect(first == records[0].mission)
    #expect(try store.mission("a2")?.workerID == "local")

    #expect(throws: PostgresImportError.self) { try store.importMissions(records) }
    do {
      try store.importMissions(records)
    } catch let error as PostgresImportError {
      #expect(error.line == 2 && error.id == "a1")
    }
    let replaced = try store.importMissions(records, replacingExisting: true)
    #expect(replaced.new == 0 && replaced.replaced == 2)
    #expect(try store.changes(after: nil).missions.count == 2)
  }

  @Test func migrationsRunOnceAndANewerSchemaIsRefused() async throws {
    let uri = try PostgresFixture.database()
    _ = try PostgresDatabase(uri: uri)
    _ = try PostgresDatabase(uri: uri)
    let connection = try PostgresConnection(uri: uri)
    let versions = try connection.query("SELECT version FROM schema_migrations ORDER BY version")
    #expect((0..<versions.count).map { versions.int64($0, "version") } == [1, 2, 3, 4, 5, 6, 7, 8])
    try connection.query("INSERT INTO schema_migrations (version, name) VALUES (99, 'future')")
    #expect(throws: PostgresError.self) { try PostgresDatabase(uri: uri) }
    do {
      _ = try PostgresDatabase(uri: uri)
    } catch let error as PostgresError {
      #expect(error.kind == .newerSchema)
    }
  }

  @Test func errorsAreTypedBySQLState() throws {
    let connection = try PostgresConnection(uri: try PostgresFixture.database())
    try connection.execute("CREATE TABLE t (id int PRIMARY KEY, n int CHECK (n > 0))")
    try connection.query("INSERT INTO t VALUES (:id, :n)", ["id": 1, "n": 1])
    #expect(throws: PostgresError.self) { try connection.query("SELEC 1") }
    for (sql, kind, constraint) in [
      ("INSERT INTO t VALUES (1, 1)", PostgresError.Kind.uniqueViolation, "t_pkey"),
      ("INSERT INTO t VALUES (2, 0)", .checkViolation, "t_n_check"),
    ] {
      do {
        try connection.query(sql)
        Issue.record("\(sql) was accepted")
      } catch {
        #expect(error.kind == kind && error.constraint == constraint && error.sqlState != nil)
      }
    }
    #expect(PostgresError.Kind(sqlState: "40001") == .serializationFailure)
    #expect(PostgresError.Kind(sqlState: "40P01") == .deadlock)
    #expect(PostgresError.Kind(sqlState: "08006") == .connectionLost)
    #expect(PostgresError.Kind(sqlState: "57P01") == .connectionLost)
    #expect(PostgresError.Kind(sqlState: "42601") == .other)
    // What `serve` answers 503: a server away, a statement cancelled; not a refusal.
    #expect(PostgresError(kind: .connectionLost, message: "gone").isUnavailable)
    #expect(PostgresError(kind: .other, sqlState: "57014", message: "cancelled").isUnavailable)
    #expect(!PostgresError(kind: .uniqueViolation, sqlState: "23505", message: "dup").isUnavailable)
  }

  @Test func namedParametersBecomePositionalOutsideQuotesAndCasts() {
    let (sql, names) = PostgresConnection.positional(
      "SELECT :a::text, ':b', \":c\", :b_2, :a WHERE x = :b_2")
    #expect(sql == "SELECT $1::text, ':b', \":c\", $2, $1 WHERE x = $2")
    #expect(names == ["a", "b_2"])
  }

  @Test func valuesRoundTripExactly() throws {
    let connection = try PostgresConnection(uri: try PostgresFixture.database())
    for value in [0.1, -0.0, 1e-300, 59.329_300_000_000_01, .infinity, 123_456_789.123_456_78] {
      let row = try connection.query("SELECT CAST(:v AS float8) AS v", ["v": value])
      #expect(row.double(0, "v") == value)
    }
    let text = "tab\there, quote ' \" back\\slash, é, 🚲"
    #expect(
      try connection.query("SELECT CAST(:t AS text) AS t", ["t": text]).string(0, "t") == text)
    let missing: String? = nil
    #expect(
      try connection.query("SELECT CAST(:t AS text) AS t", ["t": missing]).string(0, "t") == nil)
  }

  @Test func arrayArgumentsRoundTripEveryElement() throws {
    let connection = try PostgresConnection(uri: try PostgresFixture.database())
    let elements: [String?] = ["a\"b", "c\\d", nil, "", "NULL", "{x,y}", " é 🚲 "]
    let rows = try connection.query(
      "SELECT v FROM unnest(CAST(:a AS text[])) WITH ORDINALITY AS u(v, n) ORDER BY n",
      ["a": PostgresArray(elements)])
    #expect((0..<rows.count).map { rows.string($0, "v") } == elements)
  }

  /// A fix whose satellite count is past the track's `integer` column is refused with an
  /// error, and nothing of its batch is stored (the binary `COPY` cannot send it, and
  /// clamping it would store another value).
  @Test func aSatelliteCountPastIntegerIsRefusedWholeBatch() throws {
    let uri = try PostgresFixture.database()
    let store = try PostgresDatabase(uri: uri)
    try store.insert([Fixtures.mission("m1", state: .active)])
    var odd = Fixtures.fix(1)
    odd.satellitesUsed = Int(Int32.max) + 1
    let events = [
      Fixtures.fixEvent(0, mission: "m1"),
      TrackingEvent(
        time: odd.time, missionID: "m1", workerID: Worker.localID,
        kind: .fix(odd, distanceToMissionMeters: 100, travelledMeters: 11)),
    ]
    let batch = TrackingBatch(
      missionID: "m1", workerID: Worker.localID, events: events, fenceStates: [:],
      travelledMeters: 11, basedOnVersion: 0)
    #expect(throws: PostgresError.self) { try store.record(batch) }
    #expect(try store.track(ofMission: "m1").isEmpty)
    #expect(try store.events(ofMission: "m1").isEmpty)
    odd.satellitesUsed = Int(Int32.max)
    let fitting = TrackingBatch(
      missionID: "m1", workerID: Worker.localID,
      events: [
        TrackingEvent(
          time: odd.time, missionID: "m1", workerID: Worker.localID,
          kind: .fix(odd, distanceToMissionMeters: 100, travelledMeters: 11))
      ], fenceStates: [:], travelledMeters: 11, basedOnVersion: 0)
    try store.record(fitting)
    #expect(try store.track(ofMission: "m1") == [odd])
  }

  /// The binary `COPY` writer of the recording path: every value arrives as it was sent
  /// (times exact to the microsecond across 1970, 2000, year 1 and year 10000; floats to
  /// the bit; text with the bytes the text format escapes), NULL as NULL, and a time
  /// PostgreSQL cannot hold is refused rather than stored as an infinity.
  @Test func binaryCopiedValuesArriveExactly() throws {
    let uri = try PostgresFixture.database()
    _ = try PostgresDatabase(uri: uri)
    let connection = try PostgresConnection(uri: uri)
    try connection.execute(
      """
      CREATE TEMP TABLE copied (n integer, at timestamptz, us bigint, x float8, t text,
        b boolean, s smallint, i integer, l bigint)
      """)
    let times: [Int64] = [
      0, 1, -1, 999_999, -86_400_000_000, 86_399_999_999, 1_777_888_000_123_456,
      PostgresCopyBinary.epochOffset, PostgresCopyBinary.epochOffset - 1,
      -62_135_596_800_000_001, 253_402_300_800_000_000, -8_000_000_000_000_001,
    ]
    let floats: [Double] = [
      0, -0.0, 0.1, -123.456789012345, .leastNonzeroMagnitude, .greatestFiniteMagnitude,
      -.leastNormalMagnitude,
    ]
    let texts = ["", "tab\there", "new\nline\r", "back\\slash \\N", "\"quoted\"", "ünï 🛰"]
    var rows = PostgresCopyBinary(rows: times.count, bytesPerRow: 64)
    for (n, time) in times.enumerated() {
      rows.row(fields: 9)
      rows.int32(Int32(n))
      rows.timestamp(microseconds: time)
      rows.int64(time)
      rows.float8(n < floats.count ? floats[n] : nil)
      rows.text(n < texts.count ? texts[n] : nil)
      rows.bool(n < 2 ? n == 0 : nil)
      rows.int16(n == 0 ? .min : .max)
      rows.int32(n == 0 ? .min : n == 1 ? .max : nil)
      rows.int64(n == 0 ? .min : n == 1 ? .max : nil)
    }
    #expect(
      try connection.copy(
        "COPY copied FROM STDIN (FORMAT binary)", from: [rows.finish()]) == times.count)
    let wrongTimes = try connection.query(
      """
      SELECT at::text AS at FROM copied
      WHERE n NOT IN (9, 10) AND (at <> mt_time(us) OR mt_us(at) <> us)
      """)
    #expect(
      wrongTimes.count == 0, "\((0..<wrongTimes.count).map { wrongTimes.string($0, "at") ?? "" })")
    let stored = try connection.query(
      """
      SELECT n, x, t, b, s, i, l, at::text AS shown FROM copied ORDER BY n
      """)
    #expect(stored.count == times.count)
    for row in 0..<stored.count {
      let n = Int(stored.int64(row, "n") ?? -1)
      #expect(
        stored.double(row, "x")?.bitPattern == (n < floats.count ? floats[n].bitPattern : nil),
        "float \(n)")
      #expect(stored.string(row, "t") == (n < texts.count ? texts[n] : nil), "text \(n)")
      #expect(stored.bool(row, "b") == (n < 2 ? n == 0 : nil), "bool \(n)")
      #expect(stored.int64(row, "s") == (n == 0 ? Int64(Int16.min) : Int64(Int16.max)))
      #expect(
        stored.int64(row, "i") == (n == 0 ? Int64(Int32.min) : n == 1 ? Int64(Int32.max) : nil))
      #expect(stored.int64(row, "l") == (n == 0 ? .min : n == 1 ? .max : nil))
    }
    #expect(stored.string(9, "shown") == "0001-12-31 23:59:59.999999+00 BC")
    #expect(stored.string(10, "shown") == "10000-01-01 00:00:00+00")
    // The last time after 1970 an Int64 holds is a time PostgreSQL holds; one before
    // 4714 BC is refused, never stored as -infinity.
    var last = PostgresCopyBinary(rows: 1, bytesPerRow: 16)
    last.row(fields: 2)
    last.int32(99)
    last.timestamp(microseconds: .max)
    _ = try connection.copy("COPY copied (n, at) FROM STDIN (FORMAT binary)", from: [last.finish()])
    let lastShown = try connection.query(
      "SELECT isfinite(at) AS finite, at::text AS at FROM copied WHERE n = 99")
    #expect(lastShown.bool(0, "finite") == true)
    #expect(
      lastShown.string(0, "at")?.hasPrefix("294247-01-10") == true,
      "\(lastShown.string(0, "at") ?? "")")
    for time in [Int64.min, .min + PostgresCopyBinary.epochOffset, -211_900_000_000_000_000] {
      var far = PostgresCopyBinary(rows: 1, bytesPerRow: 16)
      far.row(fields: 1)
      far.timestamp(microseconds: time)
      #expect(throws: PostgresError.self, "\(time)") {
        try connection.copy("COPY copied (at) FROM STDIN (FORMAT binary)", from: [far.finish()])
      }
    }
  }

  @Test func ogrinfoReadsTheMissionsAsAPointLayer() async throws {
    let ogrinfo = "/usr/bin/ogrinfo"
    guard FileManager.default.isExecutableFile(atPath: ogrinfo) else {
      print("skipped: gdal-bin (ogrinfo) is not installed")
      return
    }
    let cluster = try PostgresFixture.cluster()
    let uri = try cluster.createDatabase()
    let store = try PostgresDatabase(uri: uri)
    try store.insert([Fixtures.mission("o1"), Fixtures.mission("o2", lat: 60)])
    let database = PostgresTestCluster.databaseName(in: uri)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: ogrinfo)
    process.arguments = [
      "-ro", "-so", "PG:host=127.0.0.1 port=\(cluster.port) user=postgres dbname=\(database)",
      "missions",
    ]
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    #expect(text.contains("Geometry: Point"))
    #expect(text.contains("Feature Count: 2"))
  }
  @Test func callsFromSeveralThreadsShareTheBoundedPool() async throws {
    let store = try PostgresDatabase(uri: try PostgresFixture.database(), maximumConnections: 2)
    // Four calls of 0.4 s from four threads on two connections: two at a time, never more.
    let clock = ContinuousClock()
    let started = clock.now
    let backends = try await withThrowingTaskGroup(of: Int64.self) { group in
      for _ in 0..<4 {
        group.addTask {
          try await onThread {
            try store.withConnection { connection in
              try connection.query("SELECT pg_backend_pid() AS pid, pg_sleep(0.4)")
                .int64(0, "pid") ?? 0
            }
          }
        }
      }
      return try await group.reduce(into: Set<Int64>()) { $0.insert($1) }
    }
    let elapsed = clock.now - started
    #expect(backends.count == 2)
    #expect(elapsed >= .milliseconds(790), "took \(elapsed)")
  }

  @Test func aConnectionTheServerEndedIsReplacedAndTheCallAnswers() async throws {
    let uri = try PostgresFixture.database()
    let store = try PostgresDatabase(uri: uri, maximumConnections: 1)
    try store.insert([Fixtures.mission("k1")])
    let pid =
      try store.withConnection { try $0.query("SELECT pg_backend_pid() AS pid") }
      .int64(0, "pid") ?? 0
    let killer = try PostgresConnection(uri: uri)
    try killer.query("SELECT pg_terminate_backend(:pid::int)", ["pid": pid])
    // The idle connection is gone on the server's side: the next call notices, opens
    // another and answers.
    #expect(try store.mission("k1")?.id == "k1")
    #expect(store.reconnects == 1)
  }

  @Test func interruptCancelsTheStatementsRunningNow() throws {
    let uri = try PostgresFixture.database()
    let store = try PostgresDatabase(uri: uri)
    let clock = ContinuousClock()
    let started = clock.now
    // The statement runs on a thread of its own, started here and not through the
    // cooperative pool, which a loaded whole-suite run keeps busy for many seconds.
    let outcome = SleepOutcome()
    Thread.detachNewThread {
      do {
        _ = try store.withConnection { try $0.query("SELECT pg_sleep(20)") }
      } catch let error as PostgresError {
        outcome.error = error
      } catch {}
      outcome.finished.signal()
    }
    // Once the statement runs.
    let observer = try PostgresConnection(uri: uri)
    var running = false
    while !running && clock.now - started < .seconds(18) {
      running =
        (try? observer.query(
          """
          SELECT count(*) AS n FROM pg_stat_activity
          WHERE state = 'active' AND query = 'SELECT pg_sleep(20)'
          """
        ).int64(0, "n")) == 1
      if !running { usleep(10_000) }
    }
    #expect(running)
    store.interrupt()
    #expect(outcome.finished.wait(timeout: .now() + 60) == .success)
    #expect(outcome.error?.sqlState == "57014", "\(String(describing: outcome.error))")
    #expect(outcome.error?.isUnavailable == true)
    #expect(clock.now - started < .seconds(19))
    // The connection went back to the pool and answers.
    #expect(try store.lastEventSequence() == 0)
  }
}

/// What the statement's thread in `interruptCancelsTheStatementsRunningNow` ended with.
private final class SleepOutcome: @unchecked Sendable {
  /// Written by that thread before it signals `finished`, read after.
  var error: PostgresError?
  let finished = DispatchSemaphore(value: 0)
}
