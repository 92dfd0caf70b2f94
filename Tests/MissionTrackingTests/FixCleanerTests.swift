import Foundation
import MissionTracking
import Testing
import TextRules

@Suite struct FixCleanerTests {
  static func run(_ cleaner: inout FixCleaner, _ fixes: [Fix]) -> [Fix] {
    var out = fixes.compactMap { cleaner.ingest($0) }
    if let last = cleaner.flush() { out.append(last) }
    return out
  }

  @Test func invalidReportsAreRejectedByReason() {
    var cleaner = FixCleaner()
    let zero = Coordinate(uncheckedLatitude: 0, longitude: 0)
    let wild = Coordinate(uncheckedLatitude: .nan, longitude: 10)
    let out = Self.run(
      &cleaner,
      [
        testFix(0, sigtuna, mode: .noFix), testFix(1, zero), testFix(2, wild),
        testFix(3, sigtuna, mode: .twoD),
      ])
    #expect(out.map(\.time) == [.t(3)])
    #expect(cleaner.summary.count(.noFix) == 1)
    #expect(cleaner.summary.count(.invalidPosition) == 2)
    #expect(cleaner.summary.reports == 4)
    #expect(cleaner.summary.accepted == 1)
  }

  @Test func reportsOfOneEpochMergeIntoOneFix() {
    var cleaner = FixCleaner()
    // GGA-like (altitude, accuracy, satellites) and RMC-like (speed, course) of one second.
    let gga = Fix(
      time: .t(0), coordinate: sigtuna, mode: .threeD, source: "nmea", altitudeMeters: 40,
      horizontalAccuracyMeters: 4, satellitesUsed: 9)
    let rmc = Fix(
      time: .t(0), coordinate: offset(sigtuna, 0, 0.5), mode: .twoD, source: "nmea",
      speedMetersPerSecond: 1.2, courseDegrees: 90)
    #expect(cleaner.ingest(gga) == nil)
    #expect(cleaner.ingest(rmc) == nil)  // still the same epoch: nothing released yet
    #expect(cleaner.hasPending)
    let merged = cleaner.flush()
    #expect(merged?.coordinate == sigtuna)  // the better (3D) report's position
    #expect(merged?.altitudeMeters == 40)
    #expect(merged?.speedMetersPerSecond == 1.2)
    #expect(merged?.courseDegrees == 90)
    #expect(merged?.satellitesUsed == 9)
    #expect(cleaner.summary.merged == 1)
    #expect(cleaner.summary.rejectedTotal == 0)
  }

  @Test func anEpochIsReleasedByTheNextEpochsFirstReport() {
    var cleaner = FixCleaner()
    #expect(cleaner.ingest(testFix(0, sigtuna)) == nil)
    #expect(cleaner.ingest(testFix(1, sigtuna))?.time == .t(0))
    var immediate = FixCleaner(configuration: try! .init(mergesEpochs: false))
    #expect(immediate.ingest(testFix(0, sigtuna))?.time == .t(0))
  }

  @Test func duplicatesAndLateFixesNeverMoveTheAnchor() {
    var cleaner = FixCleaner()
    let a = testFix(0, sigtuna)
    let b = testFix(1, offset(sigtuna, 0, 1))
    let c = testFix(2, offset(sigtuna, 0, 2))
    let out = Self.run(&cleaner, [a, a, b, c, b, a, testFix(2, offset(sigtuna, 0, 9))])
    #expect(out == [a, b, c])
    #expect(cleaner.anchor == c)
    #expect(cleaner.summary.count(.duplicate) == 2)  // a twice in one epoch; 2 s again
    #expect(cleaner.summary.count(.outOfOrder) == 2)
  }

  @Test func aSingleJumpIsAnOutlierAndKeepsTheAnchor() throws {
    var cleaner = FixCleaner()
    let far = offset(sigtuna, 90, 500)
    let out = Self.run(
      &cleaner,
      [testFix(0, sigtuna), testFix(1, far), testFix(2, offset(sigtuna, 90, 3))])
    #expect(out.map(\.time) == [.t(0), .t(2)])
    #expect(cleaner.summary.count(.outlier) == 1)
    // 150 m/s allowed: the same jump passes.
    var lenient = FixCleaner(configuration: try .init(maximumSpeedMetersPerSecond: 600))
    #expect(Self.run(&lenient, [testFix(0, sigtuna), testFix(1, far)]).count == 2)
  }

  @Test func aConsistentRunOfOutliersMovesTheAnchor() {
    // The first fix was the wrong one: the receiver really is 5 km away.
    var cleaner = FixCleaner()
    let there = offset(sigtuna, 45, 5000)
    let fixes =
      [testFix(0, sigtuna)] + (1...6).map { testFix(Double($0), offset(there, 0, Double($0))) }
    let out = Self.run(&cleaner, fixes)
    #expect(cleaner.summary.count(.outlier) == 3)
    #expect(out.map(\.time) == [.t(0), .t(4), .t(5), .t(6)])
  }

  @Test func theAccuracyLimitIsOptional() throws {
    let fixes = [
      testFix(0, sigtuna, eph: 80), testFix(1, sigtuna, eph: 8), testFix(2, sigtuna, eph: nil),
    ]
    var strict = FixCleaner(configuration: try .init(maximumHorizontalAccuracyMeters: 25))
    #expect(Self.run(&strict, fixes).map(\.time) == [.t(1), .t(2)])
    #expect(strict.summary.count(.accuracy) == 1)
    var lenient = FixCleaner()
    #expect(Self.run(&lenient, fixes).count == 3)
  }

  @Test func aFarFutureFixIsRejectedAsFutureAndNeverBecomesTheAnchor() throws {
    let now = Date.t(100)
    var cleaner = FixCleaner(configuration: try .init(now: now))
    let year9999 = Fix(
      time: try #require(UTCTime.parse("9999-12-31T23:59:59Z")?.date), coordinate: sigtuna,
      mode: .threeD, source: "test")
    let tomorrowAndABit = testFix(100 + 86_401, offset(sigtuna, 0, 1))
    let out = Self.run(
      &cleaner,
      [testFix(0, sigtuna), year9999, tomorrowAndABit, testFix(2, offset(sigtuna, 0, 2))])
    // Without the check the 9999 fix is the anchor and t = 2 s is out of order.
    #expect(out.map(\.time) == [.t(0), .t(2)])
    #expect(cleaner.summary.count(.future) == 2)
    #expect(cleaner.anchor?.time == .t(2))
    #expect(cleaner.summary.rejectionsInOrder.map(\.reason) == [.future])
  }

  @Test func aFixUpToOneDayAheadIsKept() throws {
    var cleaner = FixCleaner(configuration: try .init(now: .t(0)))
    let out = Self.run(&cleaner, [testFix(86_400, sigtuna)])
    #expect(out.count == 1)
    #expect(cleaner.summary.count(.future) == 0)
  }

  @Test func theDefaultJudgesTheFutureByTheWallClock() throws {
    var cleaner = FixCleaner()
    let now = Date()
    let soon = Fix(time: now, coordinate: sigtuna, mode: .twoD, source: "test")
    let later = Fix(
      time: now.addingTimeInterval(2 * 86_400), coordinate: sigtuna, mode: .twoD, source: "test")
    #expect(cleaner.ingest(later) == nil)
    #expect(cleaner.ingest(soon) == nil)
    #expect(cleaner.flush() == soon)
    #expect(cleaner.summary.count(.future) == 1)
    var unchecked = FixCleaner(configuration: try .init(maximumFutureSeconds: nil))
    #expect(unchecked.ingest(later) == nil)
    #expect(unchecked.flush() == later)
  }

  @Test func aStoredFutureAnchorIsNotResumed() throws {
    let stuck = testFix(10 * 86_400, sigtuna)
    var cleaner = FixCleaner(configuration: try .init(now: .t(0)), anchor: stuck)
    #expect(cleaner.anchor == nil)
    #expect(Self.run(&cleaner, [testFix(1, sigtuna)]).count == 1)
    let fine = FixCleaner(configuration: try .init(now: .t(0)), anchor: testFix(-5, sigtuna))
    #expect(fine.anchor?.time == .t(-5))
  }

  @Test func badLimitsAreRejected() {
    #expect(throws: TrackingError.self) {
      try FixCleaner.Configuration(maximumFutureSeconds: -1)
    }
    #expect(throws: TrackingError.self) {
      try FixCleaner.Configuration(maximumSpeedMetersPerSecond: 0)
    }
    #expect(throws: TrackingError.self) {
      try FixCleaner.Configuration(maximumHorizontalAccuracyMeters: -1)
    }
    #expect(throws: TrackingError.self) { try DistanceFilter(minimumDistanceMeters: .nan) }
    #expect(throws: TrackingError.self) { try GeofenceEvaluator.Configuration(dwellSeconds: -1) }
  }
}

@Suite struct DistanceFilterTests {
  @Test func firstFixIsDeliveredAndEqualityDelivers() throws {
    var filter = try DistanceFilter()
    #expect(filter.deliver(sigtuna) == 0)
    let ten = offset(sigtuna, 90, 10)
    let exact = sigtuna.distance(to: ten)
    var custom = try DistanceFilter(minimumDistanceMeters: exact)
    _ = custom.deliver(sigtuna)
    #expect(custom.deliver(ten) == exact)
    #expect(filter.deliver(offset(sigtuna, 90, 9.99)) == nil)
  }

  @Test func aSlowCreepIsMeasuredFromTheLastDeliveredFix() throws {
    var filter = try DistanceFilter()
    var delivered: [Int] = []
    for i in 0...30 where filter.deliver(offset(sigtuna, 0, 1.001 * Double(i))) != nil {
      delivered.append(i)
    }
    // 1.001 m steps: every 10th (the creep adds up from the last delivered position).
    #expect(delivered == [0, 10, 20, 30])
    #expect(abs(filter.travelledMeters - 30.03) < 1e-6)
  }

  @Test func stationaryJitterAddsNoDistance() throws {
    var filter = try DistanceFilter()
    var rng = SplitMix64(seed: 7)
    for _ in 0..<1000 {
      let p = offset(
        sigtuna, Double.random(in: 0..<360, using: &rng), Double.random(in: 0...4.9, using: &rng))
      _ = filter.deliver(p)
    }
    #expect(filter.deliveredCount == 1)
    #expect(filter.travelledMeters == 0)
  }

  @Test func matchesABruteForceModelOnRandomTracks() throws {
    var rng = SplitMix64(seed: 11)
    for _ in 0..<50 {
      let minimum = Double.random(in: 0...30, using: &rng)
      var filter = try DistanceFilter(minimumDistanceMeters: minimum)
      var points: [Coordinate] = []
      var p = sigtuna
      for _ in 0..<200 {
        p = offset(
          p, Double.random(in: 0..<360, using: &rng), Double.random(in: 0...15, using: &rng))
        points.append(p)
      }
      var modelTravelled = 0.0
      var modelLast: Coordinate?
      var modelCount = 0
      for point in points {
        let delivered = filter.deliver(point) != nil
        let should = modelLast.map { $0.distance(to: point) >= minimum } ?? true
        #expect(delivered == should)
        if should {
          modelTravelled += modelLast.map { $0.distance(to: point) } ?? 0
          modelLast = point
          modelCount += 1
        }
      }
      #expect(filter.deliveredCount == modelCount)
      #expect(abs(filter.travelledMeters - modelTravelled) < 1e-6)
    }
  }
}
