import Foundation
import MissionTracking
import Testing
import TextRules
import TraceFormats

/// GPXDecoder on small hand-written documents: one behaviour each.
struct GPXDecoderTests {
  typealias T = GPXTestSupport

  @Test func zoneOffsetsAndFractionsOfAnyLengthAreApplied() throws {
    let run = try T.decode(
      T.track(
        """
        <trkpt lat="1" lon="2"><time>2024-05-01T12:00:00+02:00</time></trkpt>
        <trkpt lat="1" lon="2"><time>2024-05-01T10:00:01.5-0130</time></trkpt>
        <trkpt lat="1" lon="2"><time>2024-05-01T10:00:02.123456789123Z</time></trkpt>
        <trkpt lat="1" lon="2"><time>2024-05-01T10:00:03.7+0000</time></trkpt>
        """))
    #expect(
      run.fixes.map { UTCTime.format($0.time) } == [
        "2024-05-01T10:00:00.000Z", "2024-05-01T11:30:01.500Z", "2024-05-01T10:00:02.123Z",
        "2024-05-01T10:00:03.700Z",
      ])
    #expect(run.statistics.warnings.isEmpty)
  }

  @Test func aTimeWithoutZoneIsUTCWithACountedWarning() throws {
    let run = try T.decode(
      T.track(
        """
        <trkpt lat="1" lon="2"><time>2002-05-25T17:06:21.250000</time></trkpt>
        <trkpt lat="1" lon="2"><time>2002-05-25T17:06:22</time></trkpt>
        """))
    #expect(UTCTime.format(run.fixes[0].time) == "2002-05-25T17:06:21.250Z")
    #expect(run.statistics.warnings == ["time without zone, read as UTC": 2])
  }

  @Test func pointsWithoutTimeAreSkippedAndCountedNotInvented() throws {
    let run = try T.decode(
      T.track(
        """
        <trkpt lat="1" lon="2"><ele>5</ele></trkpt>
        <trkpt lat="1" lon="3"/>
        <trkpt lat="1" lon="4"><time>2024-01-01T00:00:00Z</time></trkpt>
        """), strict: true)
    #expect(run.fixes.count == 1)
    #expect(run.fixes[0].coordinate.longitude == 4)
    #expect(run.statistics.skipped == ["no time": 2])
    #expect(run.statistics.recordsRead == 3)
  }

  @Test func theRecordFormTellsWaypointsAndRoutePointsFromTrackPoints() throws {
    let gpx = """
      <gpx version="1.1" creator="t">
      <wpt lat="1" lon="1"><time>2024-01-01T00:00:00Z</time></wpt>
      <rte><rtept lat="1" lon="2"><time>2024-01-01T00:00:01Z</time></rtept></rte>
      <trk><trkseg><trkpt lat="1" lon="3"><time>2024-01-01T00:00:02Z</time></trkpt>
      </trkseg></trk></gpx>
      """
    let decoded = try T.records(Array(gpx.utf8))
    var kinds: [String] = []
    for record in decoded.records {
      switch record {
      case .fix: kinds.append("track")
      case .nonTrackFix(_, let kind): kinds.append(kind.rawValue)
      case .untimed: kinds.append("untimed")
      }
    }
    #expect(kinds == ["wpt", "rtept", "track"])
    #expect(decoded.statistics.fixes == 3)
  }

  @Test func fieldsMapOntoTheFix() throws {
    let run = try T.decode(
      T.track(
        """
        <trkpt lon="-0.5" lat="51.25">
          <ele>-12.5</ele><time>2024-01-01T00:00:00Z</time>
          <fix>2d</fix><sat>9</sat><hdop>0.8</hdop>
          <speed>3.5</speed><course>-90</course>
        </trkpt>
        <trkpt lat="1" lon="2"><time>2024-01-01T00:00:01Z</time><fix>dgps</fix></trkpt>
        <trkpt lat="1" lon="2"><time>2024-01-01T00:00:02Z</time></trkpt>
        <trkpt lat="1" lon="2"><time>2024-01-01T00:00:03Z</time><ele>1</ele><fix></fix></trkpt>
        """))
    let fix = run.fixes[0]
    #expect(fix.coordinate == Coordinate(uncheckedLatitude: 51.25, longitude: -0.5))
    #expect(fix.altitudeMeters == -12.5)
    #expect(fix.mode == .twoD)
    #expect(fix.satellitesUsed == 9)
    #expect(fix.horizontalAccuracyMeters == 0.8 * GPXPoint.metersPerHDOP)
    #expect(fix.speedMetersPerSecond == 3.5)
    #expect(fix.courseDegrees == 270)
    #expect(fix.source == "gpx")
    #expect(run.fixes.map(\.mode) == [.twoD, .threeD, .twoD, .threeD])
  }

  @Test func hdopBecomesGpsdsEphWithTheDifferentialRuleForDGPS() throws {
    let run = try T.decode(
      T.track(
        """
        <trkpt lat="1" lon="2"><time>2024-01-01T00:00:00Z</time><fix>3d</fix><hdop>2</hdop></trkpt>
        <trkpt lat="1" lon="2"><time>2024-01-01T00:00:01Z</time><fix>dgps</fix><hdop>2</hdop></trkpt>
        """))
    #expect(run.fixes.map(\.horizontalAccuracyMeters) == [38, 9.5])
  }

  @Test func fixNoneIsNeverAPosition() throws {
    let run = try T.decode(
      T.track(#"<trkpt lat="0" lon="0"><time>2024-01-01T00:00:00Z</time><fix>none</fix></trkpt>"#))
    #expect(run.fixes.isEmpty)
    #expect(run.statistics.skipped == ["no fix": 1])
  }

  @Test func extensionSpeedAndCourseAreReadAndOtherExtensionsSkipped() throws {
    let run = try T.decode(
      T.track(
        """
        <trkpt lat="1" lon="2"><time>2024-01-01T00:00:00Z</time>
          <extensions>
            <gpxtpx:TrackPointExtension xmlns:gpxtpx="x"><gpxtpx:hr>120</gpxtpx:hr>
              <gpxtpx:speed>4.25</gpxtpx:speed><gpxtpx:course>720.5</gpxtpx:course>
              <gpxtpx:time>not a time</gpxtpx:time><ele>nonsense</ele>
            </gpxtpx:TrackPointExtension>
            <other><deep><deeper attr="&undefined;">&undefined;</deeper></deep></other>
          </extensions>
        </trkpt>
        """), strict: true)
    #expect(run.fixes.count == 1)
    #expect(run.fixes[0].speedMetersPerSecond == 4.25)
    #expect(run.fixes[0].courseDegrees == 0.5)
    #expect(run.fixes[0].altitudeMeters == nil)
  }

  @Test func namespacePrefixesBOMSelfClosingAndUTF8NamesAreAccepted() throws {
    let text = """
      \u{FEFF}<?xml version="1.0"?>
      <g:gpx xmlns:g="http://www.topografix.com/GPX/1/0"><g:trk><g:name>Straße Ærø 東京</g:name>
      <g:trkseg><g:trkpt lon="13.4" lat="52.5"><g:time>2024-01-01T00:00:00Z</g:time></g:trkpt>
      <g:trkpt lat="52.6" lon="13.5"/></g:trkseg></g:trk></g:gpx>
      """
    let points = try T.points(text)
    #expect(points.count == 2)
    #expect(points[0].coordinate == Coordinate(uncheckedLatitude: 52.5, longitude: 13.4))
    #expect(points[1].time == nil)
  }

  @Test func routesTracksAndWaypointsComeInDocumentOrder() throws {
    let text = """
      <gpx><wpt lat="9" lon="9"><time>2024-01-01T00:00:00Z</time></wpt>
      <rte><rtept lat="1" lon="1"><time>2024-01-01T00:00:01Z</time></rtept></rte>
      <trk><trkseg/><trkseg><trkpt lat="2" lon="2"><time>2024-01-01T00:00:02Z</time></trkpt>
      </trkseg></trk><rte><rtept lat="3" lon="3"><time>2024-01-01T00:00:03Z</time></rtept></rte>
      <wpt lat="4" lon="4"><time>2024-01-01T00:00:04Z</time></wpt></gpx>
      """
    let without = try T.decode(text)
    #expect(without.fixes.map(\.coordinate.latitude) == [1, 2, 3])
    #expect(without.statistics.skipped == ["waypoint": 2])
    let with = try T.decode(text, includeWaypoints: true)
    #expect(with.fixes.map(\.coordinate.latitude) == [9, 1, 2, 3, 4])
    let points = try T.points(text)
    #expect(points.map(\.kind) == [.waypoint, .routePoint, .trackPoint, .routePoint, .waypoint])
    #expect(points.map(\.track) == [0, 0, 0, 1, 0])
    #expect(points[2].segment == 1)
  }

  @Test func pointsOutsideTheirGPXPlaceAreIgnored() throws {
    let run = try T.decode(
      """
      <gpx><metadata><trkpt lat="1" lon="1"><time>2024-01-01T00:00:00Z</time></trkpt></metadata>
      <trk><trkpt lat="1" lon="1"><time>2024-01-01T00:00:00Z</time></trkpt></trk>
      <extensions><wpt lat="1" lon="1"/></extensions></gpx>
      """)
    #expect(run.fixes.isEmpty)
    #expect(run.statistics.recordsRead == 0)
  }

  @Test func commentsCDATAProcessingInstructionsAndEntitiesAreHandled() throws {
    let run = try T.decode(
      T.track(
        """
        <!-- a comment with <trkpt lat="5" lon="5"> and -- dashes --->
        <?pi with > inside ?>
        <trkpt lat='1' lon="&#50;"><desc attr="a > b">x &lt; y</desc>
          <time><![CDATA[2024-01-01T00:00:00Z]]></time><ele>1&#x30;</ele></trkpt>
        """))
    #expect(run.fixes.count == 1)
    #expect(run.fixes[0].coordinate.longitude == 2)
    #expect(run.fixes[0].altitudeMeters == 10)
  }

  @Test func entityDeclarationsAreNeverExpanded() throws {
    // A "billion laughs" DTD: its entities must not be expanded (or fetched), ever.
    let prolog = """

      <!DOCTYPE gpx [
        <!ENTITY lol "lol">
        <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
        <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
        <!ENTITY ext SYSTEM "file:///etc/passwd">
      ]>
      """
    let text = T.track(
      """
      <trkpt lat="1" lon="2"><name>&lol3;&ext;</name><time>2024-01-01T00:00:00Z</time></trkpt>
      <trkpt lat="1" lon="2"><time>&ext;</time></trkpt>
      <trkpt lat="&lol;" lon="2"><time>2024-01-01T00:00:00Z</time></trkpt>
      """, prolog: prolog)
    let run = try T.decode(text)
    #expect(run.fixes.count == 1)
    #expect(run.statistics.skipped == ["bad time": 1, "bad lat": 1])
    let error = T.error { () throws(TraceError) in try T.decode(text, strict: true) }
    #expect(error?.reason == #"bad <time> value "&ext;" in <trkpt>"#)
    #expect(error?.line == 11)
  }

  @Test func aBadOptionalValueIsDroppedLenientlyAndThrownStrictly() throws {
    let text = T.track(
      """
      <trkpt lat="1" lon="2"><ele>high</ele><time>2024-01-01T00:00:00Z</time><sat>-1</sat></trkpt>
      """)
    let run = try T.decode(text)
    #expect(run.fixes.count == 1)
    #expect(run.fixes[0].altitudeMeters == nil)
    #expect(
      run.statistics.warnings == ["bad <ele> value ignored": 1, "bad <sat> value ignored": 1])
    let error = T.error { () throws(TraceError) in try T.decode(text, strict: true) }
    #expect(error?.description == #"line 4:33: bad <ele> value "high" in <trkpt>"#)
  }

  @Test func badPointsAreSkippedByReasonLenientlyAndThrownStrictly() throws {
    let text = T.track(
      """
      <trkpt lat="1" lon="200"><time>2024-01-01T00:00:00Z</time></trkpt>
      <trkpt lat="north" lon="2"><time>2024-01-01T00:00:00Z</time></trkpt>
      <trkpt lat="1"><time>2024-01-01T00:00:00Z</time></trkpt>
      <trkpt lat="1" lon="2"><time>2024-13-01T00:00:00Z</time></trkpt>
      <trkpt lat="1" lon="2"><time>yesterday</time></trkpt>
      <trkpt lat="1e1" lon="2"><time>2024-01-01T00:00:00Z</time></trkpt>
      """)
    let run = try T.decode(text)
    #expect(run.fixes.count == 1)
    #expect(
      run.statistics.skipped == [
        "longitude out of range": 1, "bad lat": 1, "missing lon": 1, "bad time": 2,
      ])
    #expect(run.statistics.recordsRead == 6)
    let error = T.error { () throws(TraceError) in try T.decode(text, strict: true) }
    #expect(error?.description == "line 4:1: <trkpt> longitude 200 is outside [-180, 180]")
  }

  @Test(
    "malformed XML throws in both modes with its place",
    arguments: [
      ("<gpx><trk></gpx>", "line 1:11: end tag </gpx> does not match <trk>"),
      ("<kml></kml>", "line 1:1: not a GPX document: the root element is <kml>, not <gpx>"),
      ("<gpx></gpx>\n<gpx></gpx>", "line 2:1: a second root element"),
      ("<gpx></gpx>\n  junk", "line 2:3: text after the root element"),
      ("hello <gpx></gpx>", "line 1:1: text before the root element"),
      ("<gpx>\n<trk <a></trk></gpx>", "line 2:6: \"<\" inside a tag"),
      ("<gpx><wpt lat=1 lon=2/></gpx>", "line 1:15: attribute value without quotes in <wpt>"),
      ("<gpx><wpt lat=\"1\" lat=\"2\"/></gpx>", "line 1:19: duplicate attribute lat"),
      ("<gpx></a></gpx>", "line 1:6: end tag </a> does not match <gpx>"),
      ("</gpx>", "line 1:1: end tag </gpx> without a start tag"),
      ("<gpx><!ELEMENT x></gpx>", "line 1:6: unknown markup starting with \"<!\""),
    ])
  func malformedXMLThrowsWithItsPlace(_ input: String, _ message: String) throws {
    for strict in [false, true] {
      let error = T.error { () throws(TraceError) in try T.decode(input, strict: strict) }
      #expect(error?.description == message)
    }
  }

  @Test func hugeNamesDeepNestingAndEndlessTagsAreRefusedInStrictMode() {
    let longName = "<gpx><" + String(repeating: "n", count: 2000) + ">"
    #expect(
      T.error { () throws(TraceError) in try T.decode(longName, strict: true) }?.reason
        == "an element name longer than 1024 bytes")
    let deep = "<gpx>" + String(repeating: "<a>", count: 300)
    #expect(
      T.error { () throws(TraceError) in try T.decode(deep, strict: true) }?.description
        == "line 1:771: elements nested deeper than 256")
    let endless = Array(("<gpx><wpt lat=\"" + String(repeating: "1", count: 1 << 21)).utf8)
    for sizes in [[1 << 16], [1 << 22]] {
      let error = T.error { () throws(TraceError) in
        try T.decode(endless, strict: true, chunkSizes: sizes)
      }
      #expect(error?.description == "line 1:6: a tag longer than 1048576 bytes")
    }
  }

  @Test func anOverlongRootTagIsAnErrorInBothModes() {
    let root = Array(("<gpx a=\"" + String(repeating: "1", count: 1 << 21) + "\"></gpx>").utf8)
    for strict in [false, true] {
      #expect(
        T.error { () throws(TraceError) in try T.decode(root, strict: strict) }?.reason
          == "a tag longer than 1048576 bytes")
    }
  }

  /// `count` timed track points; `extra(k)` is inserted inside point k.
  static func points(_ count: Int, extra: (Int) -> String = { _ in "" }) -> String {
    T.track(
      (0..<count).map { k in
        let t = UTCTime.format(Date(timeIntervalSince1970: 1_700_000_000 + Double(k)))
        return "<trkpt lat=\"1\" lon=\"\(Double(k) / 1000)\"><time>\(t)</time>\(extra(k))</trkpt>"
      }.joined(separator: "\n"))
  }

  static let deepExtension =
    "<extensions>" + String(repeating: "<x>", count: 300) + "<speed>1</speed>"
    + String(repeating: "</x>", count: 300) + "</extensions>"
  static let hugeTag =
    "<extensions><big data=\"" + String(repeating: "z", count: (1 << 20) + 100)
    + "\"/></extensions>"

  @Test func aValueSplitFromALongEndTagByTheChunkingIsReadWhole() throws {
    // The value is held in place until its end tag completes; an end tag with trailing
    // spaces, cut by a chunk boundary, must not move the bytes under it.
    let text = GPXDecoderTests.points(1) { _ in
      "<ele>7</ele" + String(repeating: " ", count: 12) + ">"
    }
    let bytes = Array(text.utf8)
    let whole = try T.decode(bytes)
    #expect(whole.fixes.map(\.altitudeMeters) == [7])
    // Every first cut, then every second cut up to 40 bytes later.
    for first in 1..<bytes.count {
      for second in 1...40 {
        let run = try T.decode(bytes, chunkSizes: [first, second, 1 << 16])
        #expect(run.fixes == whole.fixes, "cut at \(first) and \(first + second)")
      }
    }
  }

  @Test func oneMalformedElementCostsOnlyThatElement() throws {
    let text = GPXDecoderTests.points(1039) { k in
      k == 715 ? GPXDecoderTests.deepExtension : k == 900 ? GPXDecoderTests.hugeTag : ""
    }
    for sizes in [[1 << 16], [4093, 1 << 20], [1 << 22]] {
      let run = try T.decode(Array(text.utf8), chunkSizes: sizes)
      #expect(run.fixes.count == 1039)
      #expect(run.fixes[715].speedMetersPerSecond == nil)
      #expect(run.fixes.map(\.coordinate.longitude) == (0..<1039).map { Double($0) / 1000 })
      #expect(
        run.statistics.skipped == [
          "element nested deeper than 256": 1, "tag longer than 1048576 bytes": 1,
        ])
      #expect(run.truncation == nil)
    }
  }

  @Test func strictModeStopsAtTheFirstErrorWithEveryFixBeforeIt() throws {
    let text = Array(
      GPXDecoderTests.points(1039) { k in k == 715 ? GPXDecoderTests.deepExtension : "" }.utf8)
    for size in [1 << 16, 977, 1 << 22] {
      var decoder = GPXDecoder(strict: true)
      var fixes: [Fix] = []
      var failure: TraceError?
      var offset = 0
      while offset < text.count, failure == nil {
        let end = min(text.count, offset + size)
        text.withUnsafeBytes { raw in
          do throws(TraceError) {
            try decoder.decode(UnsafeRawBufferPointer(rebasing: raw[offset..<end]), into: &fixes)
          } catch {
            failure = error
          }
        }
        offset = end
      }
      #expect(failure?.reason == "elements nested deeper than 256")
      #expect(fixes.count == 715)
    }
  }

  @Test func anOverlongPointTagSkipsThatPointAndAnOverlongEndTagClosesIt() throws {
    let padding = String(repeating: " ", count: (1 << 20) + 10)
    let text = T.track(
      """
      <trkpt lat="1" lon="0"><time>2024-01-01T00:00:00Z</time></trkpt>
      <trkpt lat="1" lon="1" note="\(padding)"><time>2024-01-01T00:00:01Z</time></trkpt>
      <trkpt lat="1" lon="2"\(padding)/>
      <trkpt lat="1" lon="3"><time>2024-01-01T00:00:03Z</time></trkpt\(padding)>
      <trkpt lat="1" lon="4"><time>2024-01-01T00:00:04Z</time></trkpt>
      """)
    for sizes in [[1 << 16], [1 << 23]] {
      let run = try T.decode(Array(text.utf8), chunkSizes: sizes)
      #expect(run.fixes.map(\.coordinate.longitude) == [0, 3, 4])
      #expect(run.statistics.skipped == ["tag longer than 1048576 bytes": 3])
      #expect(run.statistics.recordsRead == 3)
    }
  }

  @Test func insideASkippedElementOnlyTheBalanceCounts() throws {
    // 256 open elements is the limit: the 257th and all it holds go, its siblings stay.
    let open = String(repeating: "<a>", count: 252)
    let close = String(repeating: "</a>", count: 252)
    let text =
      "<gpx><trk><trkseg><trkpt lat=\"1\" lon=\"2\"><time>2024-01-01T00:00:00Z</time>"
      + "<extensions>\(open)<b><c></c><d/></b><e/>\(close)</extensions></trkpt>"
      + "</trkseg></trk></gpx>"
    let run = try T.decode(text)
    #expect(run.fixes.count == 1)
    #expect(run.statistics.skipped == ["element nested deeper than 256": 1])
    let malformed = try T.decode(text.replacingOccurrences(of: "</c>", with: "</q>"))
    #expect(malformed.fixes.count == 1)
  }

  @Test func utf16IsRefusedClearly() {
    let bytes: [UInt8] = [0xFF, 0xFE, 0x3C, 0x00, 0x67, 0x00]
    let error = T.error { () throws(TraceError) in try T.decode(bytes) }
    #expect(error?.reason == "UTF-16 input is not supported; convert the file to UTF-8")
  }

  @Test func anEmptyInputIsReportedAsNotGPX() throws {
    let run = try T.decode("")
    #expect(run.truncation?.reason == "no <gpx> element (empty or not XML)")
    let error = T.error { () throws(TraceError) in try T.decode("  \n", strict: true) }
    #expect(error?.description == "line 2:1: no <gpx> element (empty or not XML)")
  }

  @Test func endingInsideACommentOrTagIsTruncation() throws {
    let comment = try T.decode("<gpx><!-- never closed")
    #expect(
      comment.truncation?.reason == "document ends too early inside a comment; unclosed <gpx>")
    let tag = try T.decode("<gpx>\n<trk><trkseg><trkpt lat=\"1\"")
    #expect(
      tag.truncation?.description
        == "line 2:28: document ends too early inside a tag; unclosed <gpx> <trk> <trkseg>")
  }

  @Test func aFailedDecoderKeepsFailing() {
    var decoder = GPXDecoder()
    var fixes: [Fix] = []
    let bad = Array("<kml>".utf8)
    var errors: [TraceError] = []
    for _ in 0..<2 {
      bad.withUnsafeBytes { raw in
        do throws(TraceError) { try decoder.decode(raw, into: &fixes) } catch {
          errors.append(error)
        }
      }
    }
    #expect(errors.count == 2)
    #expect(errors[0] == errors[1])
  }

  @Test func randomMutationsNeverCrashAndChunkingNeverMatters() throws {
    // A seeded stand-in for the libFuzzer target (Tools/fuzz/run-gpx), run on every test.
    let seed = Array(
      T.track(
        """
        <trkpt lat="1.5" lon="2.5"><ele>3</ele><time>2024-01-01T00:00:00.5+01:00</time>
        <extensions><x:speed>2</x:speed></extensions></trkpt><!-- c --><![CDATA[x]]>
        <trkpt lon="-180" lat="-90"/><trkpt lat="0" lon="0"><time>bad</time></trkpt>
        """
      ).utf8)
    var random = SplitMix64(seed: 0x6770_7821)
    let alphabet = Array("<>/=\"'&;!?-[]:# \n0123456789.eEZ+trkptlatlonimewx".utf8)
    for _ in 0..<400 {
      var bytes = seed
      for _ in 0..<Int.random(in: 1...6, using: &random) {
        let at = Int.random(in: 0..<bytes.count, using: &random)
        switch Int.random(in: 0..<3, using: &random) {
        case 0: bytes[at] = alphabet.randomElement(using: &random)!
        case 1: bytes.remove(at: at)
        default: bytes.insert(alphabet.randomElement(using: &random)!, at: at)
        }
      }
      let sizes = [Int.random(in: 1...40, using: &random)]
      for strict in [false, true] {
        let whole = Result { () throws(TraceError) in try T.decode(bytes, strict: strict) }
        let chunked = Result { () throws(TraceError) in
          try T.decode(bytes, strict: strict, chunkSizes: sizes)
        }
        switch (whole, chunked) {
        case (.success(let a), .success(let b)):
          #expect(a.fixes == b.fixes)
          #expect(a.statistics == b.statistics)
          #expect(a.truncation == b.truncation)
        case (.failure(let a), .failure(let b)):
          #expect(a == b)
          #expect((a.line ?? 0) >= 1 && (a.column ?? 0) >= 1)
        default:
          Issue.record("chunking changed success into failure for \(bytes)")
        }
      }
    }
  }
}
