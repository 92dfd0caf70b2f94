import Foundation
import MissionTracking
import Testing
import TextRules
import TraceFormats

/// GPXDecoder against the third-party files in ../shared/reference/gpx (skipped when absent).
@Suite(
  "GPX reference files",
  .enabled(
    if: GPXTestSupport.hasReference,
    "../shared/reference/gpx is absent (it is not part of a user's clone)"))
struct GPXReferenceTests {
  @Test(
    "every reference file decodes with the documented counts and first/last fix",
    arguments: GPXReferenceExpectation.all)
  func referenceFileDecodesAsDocumented(_ expected: GPXReferenceExpectation) throws {
    let bytes = try GPXTestSupport.reference(expected.file)
    let run = try GPXTestSupport.decode(bytes, file: expected.file, strict: true)
    let untimed =
      expected.trackPoints + expected.routePoints - expected.timedTrackPoints
      - expected.timedRoutePoints
    #expect(run.fixes.count == expected.fixes)
    #expect(run.statistics.fixes == expected.fixes)
    #expect(
      run.statistics.recordsRead
        == expected.trackPoints + expected.routePoints + expected.waypoints)
    #expect(run.statistics.skipped["no time", default: 0] == untimed)
    #expect(run.statistics.skipped["waypoint", default: 0] == expected.waypoints)
    #expect(run.statistics.skippedTotal == untimed + expected.waypoints)
    #expect(
      run.statistics.warnings["time without zone, read as UTC", default: 0]
        == expected.timesWithoutZone)
    #expect(run.truncation == nil)
    if let first = expected.first, let fix = run.fixes.first {
      #expect(fix.coordinate.latitude == first.lat)
      #expect(fix.coordinate.longitude == first.lon)
      #expect(GPXTestSupport.millis(fix.time) == first.millis)
    }
    if let last = expected.last, let fix = run.fixes.last {
      #expect(fix.coordinate.latitude == last.lat)
      #expect(fix.coordinate.longitude == last.lon)
      #expect(GPXTestSupport.millis(fix.time) == last.millis)
    }
  }

  @Test(
    "any chunking of a reference file gives the same fixes and counts",
    arguments: GPXReferenceExpectation.all)
  func chunkingDoesNotChangeTheResult(_ expected: GPXReferenceExpectation) throws {
    let bytes = try GPXTestSupport.reference(expected.file)
    var random = SplitMix64(seed: UInt64(expected.file.utf8.count))
    let sizes = (0..<64).map { _ in Int.random(in: 1...97, using: &random) }
    let whole = try GPXTestSupport.decode(bytes, includeWaypoints: true)
    let chunked = try GPXTestSupport.decode(bytes, includeWaypoints: true, chunkSizes: sizes)
    #expect(chunked.fixes == whole.fixes)
    #expect(chunked.statistics == whole.statistics)
    #expect(whole.fixes.count == expected.fixes + expected.timedWaypoints)
  }

  @Test func prefixedElementsAreReadByLocalName() throws {
    // gpxpy and GPSBabel find 0 points here; the README's namespace-aware oracle finds 702.
    let run = try GPXTestSupport.decode(try GPXTestSupport.reference("ticofab__test.gpx"))
    #expect(run.fixes.count == 702)
    #expect(
      run.fixes.first?.coordinate == Coordinate(uncheckedLatitude: 52.2488, longitude: 5.126257))
    #expect(
      run.fixes.last?.coordinate == Coordinate(uncheckedLatitude: 52.245112, longitude: 5.111015))
    #expect(run.fixes.first?.altitudeMeters == nil)
    #expect(run.fixes[1].altitudeMeters == 34)
    #expect(run.fixes.first?.speedMetersPerSecond == 0)
  }

  @Test func offsetsWithoutColonAndExtensionSpeedAndCourseAreRead() throws {
    let run = try GPXTestSupport.decode(
      try GPXTestSupport.reference("logiqx__Waterspeed-2022-09-27-11.28.14.gpx"))
    let first = try #require(run.fixes.first)
    #expect(UTCTime.format(first.time) == "2022-09-27T10:28:14.999Z")
    #expect(first.speedMetersPerSecond == 0.0089)
    #expect(first.courseDegrees == 180.19)
    #expect(first.altitudeMeters == 0)
    #expect(first.mode == .threeD)
  }

  @Test func gpx10SpeedCourseFixSatAndHdopAreRead() throws {
    let run = try GPXTestSupport.decode(try GPXTestSupport.reference("gpsbabel__nmea.gpx"))
    let first = try #require(run.fixes.first)
    #expect(UTCTime.format(first.time) == "2004-08-07T03:29:08.379Z")
    #expect(first.mode == .threeD)
    #expect(first.satellitesUsed != nil)
    #expect(first.horizontalAccuracyMeters != nil)
    #expect(run.fixes.contains { $0.speedMetersPerSecond != nil })
    #expect(run.fixes.contains { $0.courseDegrees != nil })
  }

  @Test func sevenDigitFractionsAndNegativeOffsetsAreApplied() throws {
    let run = try GPXTestSupport.decode(
      try GPXTestSupport.reference("gpsbabel__GC7FA4.gpx"), includeWaypoints: true)
    let fix = try #require(run.fixes.first)
    #expect(run.fixes.count == 1)
    // <time>2002-08-15T00:00:00.0000000-07:00</time>
    #expect(UTCTime.format(fix.time) == "2002-08-15T07:00:00.000Z")
    #expect(fix.coordinate.longitude == -73)
  }

  @Test func latitudeOutOfRangeIsReportedWithItsPlace() throws {
    let bytes = try GPXTestSupport.reference("sgraaf__lat_too_high.gpx")
    let lenient = try GPXTestSupport.decode(bytes, includeWaypoints: true)
    #expect(lenient.fixes.isEmpty)
    #expect(lenient.statistics.skipped == ["latitude out of range": 1])
    let error = try #require(
      GPXTestSupport.error { () throws(TraceError) in
        try GPXTestSupport.decode(bytes, file: "lat_too_high.gpx", strict: true)
      })
    #expect(error.line == 3)
    #expect(error.column == 3)
    #expect(error.description == "lat_too_high.gpx:3:3: <wpt> latitude 90.1 is outside [-90, 90]")
  }

  @Test func aTrackPointWithoutLatitudeIsReportedWithItsPlace() throws {
    let bytes = try GPXTestSupport.reference("sgraaf__missing_trkpt_lat.gpx")
    let lenient = try GPXTestSupport.decode(bytes)
    #expect(lenient.fixes.isEmpty)
    #expect(lenient.statistics.skipped == ["missing lat": 1])
    #expect(lenient.statistics.recordsRead == 1)
    let error = try #require(
      GPXTestSupport.error { () throws(TraceError) in
        try GPXTestSupport.decode(bytes, file: "m.gpx", strict: true)
      })
    #expect(error.description == "m.gpx:6:7: <trkpt> has no lat attribute")
  }

  @Test func aTruncatedFileKeepsItsFixesAndReportsWhereItEnds() throws {
    let bytes = try GPXTestSupport.reference("ticofab__garminBaseCampExport-truncated.gpx")
    let lenient = try GPXTestSupport.decode(bytes, file: "t.gpx", includeWaypoints: true)
    #expect(lenient.fixes.count == 2)  // the two complete, timed waypoints
    #expect(lenient.statistics.skipped["truncated document"] == 1)  // the third <wpt>
    #expect(
      lenient.statistics.warnings == [
        "truncated document at 58:1 (document ends too early; unclosed <gpx> <wpt>)": 1
      ])
    let truncation = try #require(lenient.truncation)
    #expect(truncation.line == 58)  // gpxpy/expat: "no element found: line 58, column 0"
    #expect(truncation.column == 1)
    #expect(truncation.reason == "document ends too early; unclosed <gpx> <wpt>")
    let error = GPXTestSupport.error { () throws(TraceError) in
      try GPXTestSupport.decode(bytes, file: "t.gpx", strict: true)
    }
    #expect(error == truncation)
  }

  @Test func aMissingClosingTagIsReportedAfterAllPoints() throws {
    let bytes = try GPXTestSupport.reference("ticofab__garminBaseCampExport-noclosingtag.gpx")
    let lenient = try GPXTestSupport.decode(bytes, file: "n.gpx")
    // 7 timed route points and the one timed track point of 10; 3 waypoints not wanted.
    #expect(lenient.fixes.count == 8)
    #expect(lenient.statistics.skipped == ["no time": 9, "waypoint": 3])
    #expect(
      lenient.truncation?.description == "n.gpx:204:1: document ends too early; unclosed <gpx>")
    let error = GPXTestSupport.error { () throws(TraceError) in
      try GPXTestSupport.decode(bytes, file: "n.gpx", strict: true)
    }
    #expect(error?.line == 204)
  }

  @Test(
    "the record form decodes every point of every file, untimed ones as untimed",
    arguments: GPXReferenceExpectation.all)
  func everyPointDecodesAsARecord(_ expected: GPXReferenceExpectation) throws {
    let bytes = try GPXTestSupport.reference(expected.file)
    let (records, statistics) = try GPXTestSupport.records(bytes, file: expected.file)
    let points = expected.trackPoints + expected.routePoints + expected.waypoints
    let timed = expected.timedTrackPoints + expected.timedRoutePoints + expected.timedWaypoints
    #expect(records.count == points)
    #expect(statistics.fixes == timed)
    #expect(statistics.untimedPoints == points - timed)
    let untimed = records.filter { if case .untimed = $0 { true } else { false } }
    #expect(untimed.count == points - timed)
  }

  @Test(arguments: ["gpsbabel__basecamp.gpx", "gpxpy__cerknicko-without-times.gpx"])
  func anUntimedTrackAmongTimedOnesDecodesEveryPoint(file: String) throws {
    let path = GPXTestSupport.referenceDirectory.appendingPathComponent(file).path
    var records: [TraceRecord] = []
    let statistics = try TraceReader(path: path).forEachRecordBatch { records += $0 }
    let text = String(decoding: try GPXTestSupport.reference(file), as: UTF8.self)
    let elements = ["<trkpt", "<rtept", "<wpt"].map { text.components(separatedBy: $0).count - 1 }
    #expect(records.count == elements.reduce(0, +))
    #expect(statistics.skippedTotal == 0)
    var untimedTrackPoints: [GPXPoint] = []
    for record in records {
      if case .untimed(let point) = record, point.kind == .trackPoint {
        untimedTrackPoints.append(point)
      }
    }
    if file == "gpsbabel__basecamp.gpx" {
      // The saved track has no times; its waypoints and route do.
      #expect(untimedTrackPoints.count == 2)
      #expect(statistics.fixes == 4)
    } else {
      #expect(untimedTrackPoints.count == 296 - 5)
      #expect(statistics.untimedPoints == 298)
    }
    // A replay can give an untimed point a time along its path.
    let given = Date(timeIntervalSince1970: 1_700_000_000)
    #expect(untimedTrackPoints.first?.fix(at: given)?.time == given)
  }

  @Test func untimedPointsStayAvailableAsPoints() throws {
    let text = String(
      decoding: try GPXTestSupport.reference("gpsbabel__position_track.gpx"), as: UTF8.self)
    let points = try GPXTestSupport.points(text)
    #expect(points.count == 40)
    #expect(points.allSatisfy { $0.time == nil && $0.kind == .trackPoint })
    #expect(points.first?.coordinate.latitude == 40.009054849)
    #expect(points.last?.coordinate.longitude == -105.205790238)
  }

  @Test func tracksAndSegmentsAreNumberedInDocumentOrder() throws {
    let text = String(
      decoding: try GPXTestSupport.reference("togeojson__blue_hills.gpx"), as: UTF8.self)
    let points = try GPXTestSupport.points(text).filter { $0.kind == .trackPoint }
    #expect(points.count == 1243)
    #expect(Set(points.map(\.track)) == [0, 1, 2])
    // 3 tracks with 9, 2 and 3 segments.
    let segments = Set(points.map { "\($0.track)/\($0.segment)" })
    #expect(segments.count == 14)
    #expect(points.filter { $0.track == 0 }.map(\.segment).max() == 8)
  }
}
