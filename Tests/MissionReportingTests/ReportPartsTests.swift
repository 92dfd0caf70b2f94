import Foundation
import MissionTracking
import Testing

@testable import MissionReporting

/// The pieces the report is drawn with: escaping, numbers, projection, scale bar, thinning,
/// label placement, file format.
@Suite struct ReportPartsTests {
  @Test func escapingCoversMarkupQuotesAndForbiddenControls() {
    #expect(SVGText.escape("a<b>&\"c'") == "a&lt;b&gt;&amp;&quot;c&apos;")
    #expect(SVGText.escape("tab\tnew\nline") == "tab\tnew\nline")
    #expect(SVGText.escape("\u{0}\u{8}\u{1F}\u{FFFE}") == "\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}")
    #expect(SVGText.escape("Åre · 350 kr") == "Åre · 350 kr")
  }

  @Test(arguments: [
    (0.0, "0"), (12.34, "12.3"), (-4.0, "-4"), (-0.04, "0"), (-0.06, "-0.1"), (99.96, "100"),
    (Double.nan, "0"), (Double.infinity, "0"), (1e300, "1000000000000"),
  ])
  func pageNumbersHaveOneDecimalAtMost(value: Double, text: String) {
    #expect(SVGText.number(value) == text)
  }

  @Test func theProjectionKeepsDistanceAndBearingFromTheCentre() throws {
    var random = SplitMix64(seed: 3)
    for _ in 0..<500 {
      let center = try Coordinate(
        latitude: Double.random(in: -80...80, using: &random),
        longitude: Double.random(in: -180...180, using: &random))
      let projection = LocalProjection(center: center)
      let distance = pow(10, Double.random(in: -1...5, using: &random))  // 0.1 m .. 100 km
      let bearing = Double.random(in: 0..<360, using: &random)
      let point = try center.destination(bearingDegrees: bearing, distanceMeters: distance)
      let plane = projection.project(point)
      let planeDistance = (plane.x * plane.x + plane.y * plane.y).squareRoot()
      #expect(abs(planeDistance - center.distance(to: point)) <= 1e-6 * max(distance, 1))
      let planeBearing = atan2(plane.x, plane.y) * 180 / .pi
      let expected = center.initialBearingDegrees(to: point)
      var difference = abs(planeBearing - expected).truncatingRemainder(dividingBy: 360)
      if difference > 180 { difference = 360 - difference }
      #expect(difference < 1e-5 * max(1, 100 / distance))
    }
  }

  @Test func theProjectionIsTrueToScaleAcrossASmallArea() throws {
    // Two points 500 m either side of the centre, 300 m apart: the page distance between
    // them (not only to the centre) is the great-circle distance to well under 0.01 %.
    let center = try Coordinate(latitude: 64, longitude: 20)
    let projection = LocalProjection(center: center)
    let a = try center.destination(bearingDegrees: 80, distanceMeters: 500)
    let b = try a.destination(bearingDegrees: 170, distanceMeters: 300)
    let pa = projection.project(a)
    let pb = projection.project(b)
    #expect(abs(pa.distance(to: pb) - a.distance(to: b)) < 0.01)
    #expect(projection.project(center) == PlanePoint(x: 0, y: 0))
    // Even the antipode gives finite numbers.
    let antipode = try Coordinate(latitude: -64, longitude: -160)
    let far = projection.project(antipode)
    #expect(far.x.isFinite && far.y.isFinite)
  }

  @Test func scaleBarPicksTheLongestRoundLengthThatFits() {
    #expect(ScaleBar(pixelsPerMeter: 1, maximumPixels: 170).meters == 100)
    #expect(ScaleBar(pixelsPerMeter: 3, maximumPixels: 170).meters == 50)
    #expect(ScaleBar(pixelsPerMeter: 0.01, maximumPixels: 170).meters == 10_000)
    #expect(ScaleBar(pixelsPerMeter: 0.01, maximumPixels: 170).label == "10 km")
    #expect(ScaleBar(pixelsPerMeter: 0.5, maximumPixels: 170).label == "200 m")
    #expect(ScaleBar(pixelsPerMeter: 500, maximumPixels: 170).meters == 1)
    var random = SplitMix64(seed: 11)
    let series = (0...7).flatMap { e in [1.0, 2, 5].map { $0 * pow(10, Double(e)) } }
    for _ in 0..<1000 {
      let scale = pow(10, Double.random(in: -5...1.5, using: &random))
      let bar = ScaleBar(pixelsPerMeter: scale, maximumPixels: 170)
      // Brute force: the largest series member whose bar fits.
      let expected = series.filter { $0 * scale <= 170 }.max() ?? 1
      #expect(bar.meters == expected)
      #expect(abs(bar.pixels - bar.meters * scale) < 1e-9)
    }
  }

  @Test func segmentsBreakOnlyAtStepsLongerThanTheGap() {
    let t = { (s: Double) in Date(timeIntervalSince1970: s) }
    #expect(TrackThinner.segments(times: [], gapSeconds: 60).isEmpty)
    #expect(TrackThinner.segments(times: [t(0)], gapSeconds: 60) == [0..<1])
    #expect(
      TrackThinner.segments(times: [t(0), t(60), t(121), t(122), t(500)], gapSeconds: 60)
        == [0..<2, 2..<4, 4..<5])
  }

  @Test func thinningKeepsEndsAndEveryDroppedPointIsNearAKeptOne() {
    var random = SplitMix64(seed: 5)
    for _ in 0..<40 {
      var segments: [[PlanePoint]] = []
      for _ in 0..<Int.random(in: 1...4, using: &random) {
        var p = PlanePoint(x: 300, y: 300)
        segments.append(
          (0..<Int.random(in: 1...3000, using: &random)).map { _ in
            p.x += Double.random(in: -2...2, using: &random)
            p.y += Double.random(in: -2...2, using: &random)
            return p
          })
      }
      let limit = Int.random(in: 10...2000, using: &random)
      let (thinned, spacing) = TrackThinner.thin(
        segments, minimumSpacing: 0.5, maximumPoints: limit)
      let total = thinned.reduce(0) { $0 + $1.count }
      let floor = segments.reduce(0) { $0 + min($1.count, 2) }
      #expect(total <= max(limit, floor))
      for (original, kept) in zip(segments, thinned) {
        #expect(kept.first == original.first && kept.last == original.last)
        // Kept points are an ordered subsequence of the original.
        var index = 0
        for point in kept {
          while index < original.count && original[index] != point { index += 1 }
          #expect(index < original.count)
        }
        // Brute force: each original point is within `spacing` of some kept point.
        for point in original {
          #expect(kept.contains { $0.distance(to: point) <= spacing + 1e-9 })
        }
      }
    }
  }

  @Test func labelsNeverOverlapEachOtherOrObstacles() {
    let bounds = LabelPlacer.Box(minX: 0, minY: 0, maxX: 400, maxY: 400)
    let obstacle = LabelPlacer.Box(minX: 190, minY: 190, maxX: 210, maxY: 210)
    var placer = LabelPlacer(bounds: bounds, obstacles: [obstacle], track: [])
    var random = SplitMix64(seed: 9)
    var placed: [LabelPlacer.Placement] = []
    for _ in 0..<200 {
      let point = PlanePoint(
        x: Double.random(in: 150...250, using: &random),
        y: Double.random(in: 150...250, using: &random))
      if let label = placer.place("10:00:00", near: point, fontSize: 12, gap: 7) {
        placed.append(label)
      }
    }
    #expect(placed.count >= 10)
    for (i, a) in placed.enumerated() {
      #expect(!a.box.intersects(obstacle))
      #expect(a.box.minX >= 0 && a.box.maxX <= 400 && a.box.minY >= 0 && a.box.maxY <= 400)
      for b in placed[(i + 1)...] { #expect(!a.box.intersects(b.box)) }
    }
  }

  @Test func labelsPreferASideWithoutTrack() {
    // A track running left to right through the point: the label must not sit on it.
    let track = [[PlanePoint(x: 0, y: 100), PlanePoint(x: 400, y: 100)]]
    var placer = LabelPlacer(
      bounds: LabelPlacer.Box(minX: 0, minY: 0, maxX: 400, maxY: 400), obstacles: [], track: track)
    let label = placer.place("10:05:00", near: PlanePoint(x: 200, y: 100), fontSize: 12, gap: 7)
    #expect(label != nil)
    #expect(label.map { $0.box.maxY < 100 || $0.box.minY > 100 } == true)
  }

  @Test func formatComesFromTheFileExtension() {
    #expect(ReportFormat(path: "out/report.svg") == .svg)
    #expect(ReportFormat(path: "REPORT.SVG") == .svg)
    #expect(ReportFormat(path: "r.html") == .html)
    #expect(ReportFormat(path: "r.htm") == .html)
    #expect(ReportFormat(path: "r.png") == nil)
    #expect(ReportFormat(path: "dir.svg/report") == nil)
    #expect(ReportFormat(path: "report") == nil)
  }

  @Test func theTrackCanComeFromTheFixEventsAlone() {
    let full = ReportFixtures.walkingReport()
    let fromEvents = MissionReport(mission: full.mission, events: full.events)
    #expect(fromEvents.track == full.track)
    #expect(fromEvents.events.count == full.events.count)
    #expect(ReportRenderer().svg(fromEvents) == ReportRenderer().svg(full))
    let other = MissionReport(
      mission: Mission(id: "other", coordinate: ReportFixtures.uppsala), events: full.events)
    #expect(other.track.isEmpty && other.events.isEmpty)
  }

  @Test func exitMarginDefaultsToTwentyMetresOrTwentyPercent() {
    #expect(MissionReport.defaultExitMargin(radiusMeters: 50) == 20)
    #expect(MissionReport.defaultExitMargin(radiusMeters: 100) == 20)
    #expect(MissionReport.defaultExitMargin(radiusMeters: 250) == 50)
    let mission = Mission(id: "a", coordinate: ReportFixtures.uppsala, geofenceRadiusMeters: 300)
    #expect(MissionReport(mission: mission, track: []).exitMarginMeters == 60)
    #expect(MissionReport(mission: mission, track: [], exitMarginMeters: 5).exitMarginMeters == 5)
  }

  @Test func timeLabelsComeEveryRoundInterval() {
    let renderer = ReportRenderer()
    #expect(renderer.timeLabelInterval(durationSeconds: 90) == 10)
    #expect(renderer.timeLabelInterval(durationSeconds: 25 * 60) == 300)
    #expect(renderer.timeLabelInterval(durationSeconds: 3 * 3600) == 1800)
    #expect(renderer.timeLabelInterval(durationSeconds: 30 * 86_400) == 3 * 86_400)
  }

  @Test func textHelpersReadWell() {
    #expect(ReportRenderer.durationText(45) == "45 s")
    #expect(ReportRenderer.durationText(725) == "12 min 5 s")
    #expect(ReportRenderer.durationText(7380) == "2 h 3 min")
    #expect(ReportRenderer.distanceText(849.6) == "850 m")
    #expect(ReportRenderer.distanceText(1843) == "1.84 km")
    #expect(ReportRenderer.distanceText(12_345) == "12.3 km")
    #expect(ReportRenderer.clockText(ReportFixtures.t0.addingTimeInterval(303.4)) == "10:05:03")
    #expect(
      ReportRenderer.wrap("one two three four", width: 9, maximumLines: 3) == [
        "one two", "three", "four",
      ])
    #expect(
      ReportRenderer.wrap("one two three four", width: 9, maximumLines: 2) == [
        "one two", "three\u{2026}",
      ])
    #expect(
      ReportRenderer.wrap("abcdefghijkl", width: 5, maximumLines: 3) == ["abcde", "fghij", "kl"])
    #expect(ReportRenderer.wrap("", width: 5, maximumLines: 3).isEmpty)
  }

  /// A title of a million characters, as one word or as many, is cut off as a short one is,
  /// and at once: the wrap that counted the rest of a long word for every line it cut took
  /// minutes for a million characters, holding a server thread (the report endpoints).
  @Test(.timeLimit(.minutes(1))) func wrapCutsOffAHugeTitleAtOnce() {
    let start = ContinuousClock.now
    let line = String(repeating: "T", count: 15)
    #expect(
      ReportRenderer.wrap(String(repeating: "T", count: 1_000_000), width: 15, maximumLines: 3)
        == [line, line, String(line.dropLast()) + "\u{2026}"])
    let words = Array(repeating: "ab", count: 500_000).joined(separator: " ")
    #expect(ReportRenderer.wrap(words, width: 5, maximumLines: 2) == ["ab ab", "ab a\u{2026}"])
    #expect(ContinuousClock.now - start < .seconds(5))
  }
}
