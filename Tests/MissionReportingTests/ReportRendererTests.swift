import Foundation
import MissionTracking
import SVGTestSupport
import Testing

@testable import MissionReporting

/// The mission report picture: well-formed, self-contained, drawn to scale, with every part.
@Suite struct ReportRendererTests {
  let renderer = ReportRenderer()

  func render(_ report: MissionReport) -> (text: String, svg: ParsedSVG) {
    let text = renderer.svg(report)
    return (text, ParsedSVG(text))
  }

  /// The page point of `coordinate` per the document's own scale and mission point.
  func expectedPagePoint(
    _ coordinate: Coordinate, in svg: ParsedSVG, center: Coordinate
  ) -> (x: Double, y: Double) {
    let fence = svg.elements("circle", class: "fence")[0]
    let scale = Double(
      svg.elements("g").first { $0.attributes["id"] == "map" }!.attributes["data-px-per-m"]!)!
    let cx = Double(fence.attributes["cx"]!)!
    let cy = Double(fence.attributes["cy"]!)!
    let distance = center.distance(to: coordinate)
    let bearing = center.initialBearingDegrees(to: coordinate) * .pi / 180
    return (cx + distance * sin(bearing) * scale, cy - distance * cos(bearing) * scale)
  }

  @Test func theSampleMissionIsWellFormedAndHasEveryPart() throws {
    let report = ReportFixtures.walkingReport()
    let (text, svg) = render(report)
    #expect(svg.error == nil)
    #expect(svg.complete)
    #expect(text.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg "))
    #expect(text.hasSuffix("</svg>\n"))
    #expect(svg.elements("circle", class: "fence").count == 1)
    #expect(svg.elements("circle", class: "exit-margin").count == 1)
    #expect(svg.withClass("mission-point").count == 1)
    #expect(svg.withClass("scale-bar").count == 1)
    #expect(svg.withClass("north-arrow").count == 1)
    for kind in ["start", "end", "enter", "dwell", "exit", "crossed"] {
      #expect(svg.withClass(kind).count >= 1, "no \(kind) marker")
      #expect(
        svg.elements.contains { $0.attributes["data-kind"] == kind }, "no legend entry \(kind)")
    }
    // Standing still (no delivered fix: distance filter) and the lost GPS make steps of over
    // two minutes: the line breaks there, with a dotted link.
    let gaps = zip(report.track, report.track.dropFirst()).filter {
      $1.time.timeIntervalSince($0.time) > renderer.gapSeconds
    }.count
    #expect(gaps >= 2)
    #expect(svg.elements("polyline", class: "track").count == gaps + 1)
    #expect(svg.elements("line", class: "gap").count == gaps)
    let drawnFixes = svg.elements("polyline", class: "track").map {
      Int($0.attributes["data-fixes"]!)!
    }
    #expect(drawnFixes.reduce(0, +) == report.track.count)
    // Time labels read HH:MM:SS and exist along the way.
    let labels = svg.elements("text", class: "time-label").map(\.text)
    #expect(labels.count >= 5)
    #expect(
      labels.allSatisfy { $0.range(of: #"^\d\d:\d\d:\d\d$"#, options: .regularExpression) != nil })
    #expect(labels.first == ReportRenderer.clockText(report.track[0].time))
    // Their boxes (estimated as the placer does) do not overlap each other or a marker.
    var boxes: [LabelPlacer.Box] = []
    for label in svg.elements("text", class: "time-label") {
      let x = Double(label.attributes["x"]!)!
      let y = Double(label.attributes["y"]!)!
      let width = SVGText.estimatedWidth(label.text, fontSize: 12)
      let left = label.attributes["text-anchor"] == "end" ? x - width : x
      boxes.append(LabelPlacer.Box(minX: left, minY: y - 9.6, maxX: left + width, maxY: y + 3))
    }
    for (i, a) in boxes.enumerated() {
      for b in boxes[(i + 1)...] { #expect(!a.intersects(b)) }
      for marker in svg.elements("g", class: "marker") {
        guard let at = ParsedSVG.points(marker.attributes["data-at"]).first else { continue }
        #expect(!a.contains(PlanePoint(x: at.x, y: at.y)))
      }
    }
    // Nothing that would fetch anything: no external references at all.
    for forbidden in [
      "http://", "https://", "xlink:href", "<script", "<image", "@import", "url(http",
    ] {
      let occurrences = text.components(separatedBy: forbidden).count - 1
      let allowed = forbidden == "http://" ? 1 : 0  // the SVG namespace name only
      #expect(occurrences == allowed, "\(forbidden) occurs \(occurrences) times")
    }
  }

  @Test func theWellFormednessCheckCatchesTruncatedOutput() {
    // XMLParser on Linux may accept a cut-off document; ParsedSVG must not.
    let text = renderer.svg(ReportFixtures.walkingReport())
    for fraction in [0.1, 0.5, 0.9, 0.999] {
      let cut = String(text.prefix(Int(Double(text.count) * fraction)))
      #expect(!ParsedSVG(cut).complete, "accepted \(fraction) of the document")
    }
    #expect(!ParsedSVG(text.replacingOccurrences(of: "</svg>\n", with: "")).complete)
    #expect(ParsedSVG(text).complete)
  }

  @Test func eachFenceEventGetsOneMarkerAtItsPlaceOnTheTrack() throws {
    let report = ReportFixtures.walkingReport()
    let (_, svg) = render(report)
    let counts = Dictionary(grouping: report.fenceEvents, by: \.marker).mapValues(\.count)
    for (marker, count) in counts {
      #expect(svg.elements("g", class: marker.rawValue).count == count, "\(marker)")
    }
    // The crossed marker sits inside the fence (the segment's nearest point to the mission).
    let crossed = svg.elements("g", class: "crossed")[0]
    let at = ParsedSVG.points(crossed.attributes["data-at"])[0]
    let (mx, my) = (at.x, at.y)
    let fence = svg.elements("circle", class: "fence")[0]
    let dx = mx - Double(fence.attributes["cx"]!)!
    let dy = my - Double(fence.attributes["cy"]!)!
    #expect((dx * dx + dy * dy).squareRoot() < Double(fence.attributes["r"]!)!)
    #expect(crossed.ancestors.contains("g"))
    // Symbols never sit on top of each other or on the mission point: those that would are
    // moved aside on a leader line.
    var centers: [(x: Double, y: Double)] = []
    for element in svg.elements("g", class: "marker") where element.attributes["data-at"] != nil {
      let index = svg.elements.firstIndex {
        $0.attributes["data-at"] == element.attributes["data-at"]
      }!
      let shape = ParsedSVG.points(svg.elements[index + 2].attributes["points"])
      centers.append(
        (
          shape.map(\.x).reduce(0, +) / Double(shape.count),
          (shape.map(\.y).max()! + shape.map(\.y).min()!) / 2
        ))
    }
    #expect(centers.count == report.fenceEvents.count)
    for (i, a) in centers.enumerated() {
      let fx = Double(fence.attributes["cx"]!)!
      let fy = Double(fence.attributes["cy"]!)!
      #expect(hypot(a.x - fx, a.y - fy) >= 15)
      for b in centers[(i + 1)...] { #expect(hypot(a.x - b.x, a.y - b.y) >= 15) }
    }
  }

  @Test func aFreeSpotIsFoundBesideOccupiedSymbols() {
    let p = PlanePoint(x: 100, y: 100)
    #expect(ReportRenderer.freeSpot(near: p, radius: 9, avoiding: []) == p)
    #expect(
      ReportRenderer.freeSpot(near: p, radius: 9, avoiding: [(PlanePoint(x: 140, y: 100), 9)]) == p)
    let moved = ReportRenderer.freeSpot(
      near: p, radius: 9, avoiding: [(PlanePoint(x: 102, y: 101), 9)])
    #expect(moved != p)
    #expect(abs(moved.distance(to: p) - 24) < 1e-9)
    #expect(moved.distance(to: PlanePoint(x: 102, y: 101)) >= 16)
  }

  @Test func aSparseTrackIsDrawnWithOnePointPerFixWhereTheProjectionPutsIt() throws {
    let center = ReportFixtures.uppsala
    let track = (0..<6).map { i in
      ReportFixtures.fix(ReportFixtures.offset(center, 70, 300 - Double(i) * 40), Double(i) * 30)
    }
    let report = MissionReport(mission: ReportFixtures.mission(), track: track)
    let (_, svg) = render(report)
    #expect(svg.complete)
    let polylines = svg.elements("polyline", class: "track")
    try #require(polylines.count == 1)
    let points = ParsedSVG.points(polylines[0].attributes["points"])
    #expect(points.count == 6)
    #expect(polylines[0].attributes["data-fixes"] == "6")
    for (point, fix) in zip(points, track) {
      let expected = expectedPagePoint(fix.coordinate, in: svg, center: center)
      #expect(abs(point.x - expected.x) <= 0.1)
      #expect(abs(point.y - expected.y) <= 0.1)
    }
  }

  @Test func theFenceAndMarginCirclesHaveTheirRadiusAtTheScaleOfTheScaleBar() throws {
    for radius in [10.0, 50, 200, 1500] {
      let mission = ReportFixtures.mission(radius: radius)
      let track = [
        ReportFixtures.fix(ReportFixtures.offset(mission.coordinate, 0, radius * 3), 0),
        ReportFixtures.fix(ReportFixtures.offset(mission.coordinate, 180, radius * 2), 60),
      ]
      let (_, svg) = render(MissionReport(mission: mission, track: track))
      let bar = svg.withClass("scale-bar")[0]
      let meters = Double(bar.attributes["data-meters"]!)!
      let pixels = Double(bar.attributes["data-px"]!)!
      let scale = pixels / meters
      let fence = Double(svg.elements("circle", class: "fence")[0].attributes["r"]!)!
      let margin = Double(svg.elements("circle", class: "exit-margin")[0].attributes["r"]!)!
      #expect(abs(fence - radius * scale) <= 0.06, "radius \(radius)")
      #expect(abs(margin - (radius + max(20, 0.2 * radius)) * scale) <= 0.06)
      // The bar is a round length and between a tenth and the whole of 170 px.
      #expect([1.0, 2, 5].contains(meters / pow(10, log10(meters).rounded(.down))))
      #expect(pixels <= 170 && pixels > 170 / 2.5 - 0.001)
    }
  }

  @Test func legendListsOnlyTheEventsPresent() throws {
    let mission = ReportFixtures.mission()
    let c = mission.coordinate
    let track = [
      ReportFixtures.fix(ReportFixtures.offset(c, 0, 120), 0),
      ReportFixtures.fix(ReportFixtures.offset(c, 0, 30), 40),
      ReportFixtures.fix(ReportFixtures.offset(c, 0, 90), 80),
    ]
    let events = [
      TrackingEvent(
        time: track[1].time, missionID: mission.id,
        kind: .enter(fenceID: mission.id, distanceMeters: 30, initial: false)),
      TrackingEvent(
        time: track[2].time, missionID: mission.id,
        kind: .exit(fenceID: mission.id, distanceMeters: 90)),
      // Another mission's event is not drawn.
      TrackingEvent(
        time: track[1].time, missionID: "other",
        kind: .dwell(fenceID: "other", dwellSeconds: 60)),
    ]
    let (_, svg) = render(MissionReport(mission: mission, track: track, events: events))
    let kinds = Set(svg.elements.compactMap { $0.attributes["data-kind"] })
    #expect(
      kinds.isSuperset(of: [
        "track", "fence", "exit-margin", "mission-point", "start", "end", "enter", "exit",
      ]))
    #expect(!kinds.contains("dwell"))
    #expect(!kinds.contains("crossed"))
    #expect(!kinds.contains("gap"))
    #expect(svg.elements("g", class: "enter").count == 1)
    #expect(svg.elements("g", class: "exit").count == 1)
    #expect(svg.elements("g", class: "dwell").isEmpty)
  }

  @Test func markupInTitlesIsEscaped() throws {
    let nasty = "Tom & Jerry's <\"shop\"> ]]> \u{1}bell"
    let mission = Mission(
      id: "<id&\"1\">", title: nasty, coordinate: ReportFixtures.uppsala, reward: "3<5",
      currency: "&", address: "\"Quote\" street")
    let report = MissionReport(
      mission: mission, track: [ReportFixtures.fix(ReportFixtures.uppsala, 0)],
      events: [
        TrackingEvent(
          time: ReportFixtures.t0, missionID: mission.id,
          kind: .source(.gap, detail: "<b>&nbsp;</b>"))
      ])
    let html = renderer.html(report)
    let inline = html[html.range(of: "<svg ")!.lowerBound..<html.range(of: "</svg>\n")!.upperBound]
    #expect(html.contains("<title>Mission &lt;id&amp;&quot;1&quot;&gt;: Tom &amp; Jerry"))
    for text in [renderer.svg(report), String(inline)] {
      let svg = ParsedSVG(text)
      #expect(svg.error == nil)
      #expect(svg.complete)
      let titleText = svg.elements("text", class: "mission-title").map(\.text).joined(
        separator: " ")
      #expect(titleText == "Tom & Jerry's <\"shop\"> ]]> \u{FFFD}bell")
      #expect(
        svg.elements("text", class: "mission-id").map(\.text).joined() == "Mission <id&\"1\">")
      #expect(
        svg.elements("title").first?.text.hasPrefix("Mission <id&\"1\">: Tom & Jerry") == true)
      #expect(
        svg.elements("text", class: "event-row").contains { $0.text.hasSuffix("<b>&nbsp;</b>") })
    }
  }

  @Test func anEmptyTrackShowsTheFenceAndANote() throws {
    let report = MissionReport(mission: ReportFixtures.mission(state: .accepted), track: [])
    let (_, svg) = render(report)
    #expect(svg.complete)
    #expect(svg.elements("polyline").isEmpty)
    #expect(svg.withClass("track-point").isEmpty)
    #expect(svg.elements("circle", class: "fence").count == 1)
    #expect(
      svg.elements("text", class: "note").first?.text == "No fixes were recorded for this mission.")
    #expect(svg.withClass("start").isEmpty)
    let kinds = Set(svg.elements.compactMap { $0.attributes["data-kind"] })
    #expect(!kinds.contains("track"))
    #expect(kinds.contains("fence"))
    // Fence plus margin fill a good part of the map (fitted, not a dot).
    let r = Double(svg.elements("circle", class: "exit-margin")[0].attributes["r"]!)!
    #expect(r > 200 && r < 776 / 2)
  }

  @Test(arguments: [Double.nan, -5, 0, .infinity])
  func aBadOrZeroRadiusStillGivesAPicture(radius: Double) throws {
    let mission = ReportFixtures.mission(radius: radius)
    let track = [
      ReportFixtures.fix(ReportFixtures.offset(mission.coordinate, 10, 40), 0),
      ReportFixtures.fix(ReportFixtures.offset(mission.coordinate, 100, 40), 30),
    ]
    let (text, svg) = render(MissionReport(mission: mission, track: track))
    #expect(svg.complete)
    #expect(!text.contains("nan") && !text.contains("inf"))
    #expect(svg.elements("circle", class: "fence")[0].attributes["r"] == "0")
    #expect(svg.elements("circle", class: "exit-margin")[0].attributes["r"] != "0")
    let points = ParsedSVG.points(svg.elements("polyline", class: "track")[0].attributes["points"])
    #expect(points.count == 2)
    // Fitted: the two fixes 80 m apart are far apart on the page.
    #expect(hypot(points[0].x - points[1].x, points[0].y - points[1].y) > 200)
  }

  @Test func aSingleFixIsADotWithAStartMarker() throws {
    let mission = ReportFixtures.mission()
    let fix = ReportFixtures.fix(ReportFixtures.offset(mission.coordinate, 90, 200), 0)
    let (_, svg) = render(MissionReport(mission: mission, track: [fix]))
    #expect(svg.complete)
    #expect(svg.elements("polyline").isEmpty)
    let dots = svg.elements("circle", class: "track-point")
    try #require(dots.count == 1)
    #expect(svg.elements("g", class: "start").count == 1)
    #expect(svg.elements("g", class: "end").isEmpty)
    #expect(!svg.elements.contains { $0.attributes["data-kind"] == "track" })
    let expected = expectedPagePoint(fix.coordinate, in: svg, center: mission.coordinate)
    #expect(abs(Double(dots[0].attributes["cx"]!)! - expected.x) <= 0.1)
    #expect(abs(Double(dots[0].attributes["cy"]!)! - expected.y) <= 0.1)
  }

  func mapRect(_ svg: ParsedSVG) -> (minX: Double, minY: Double, maxX: Double, maxY: Double) {
    let clip = svg.elements.first { $0.name == "rect" && $0.ancestors.last == "clipPath" }!
    let x = Double(clip.attributes["x"]!)!
    let y = Double(clip.attributes["y"]!)!
    return (x, y, x + Double(clip.attributes["width"]!)!, y + Double(clip.attributes["height"]!)!)
  }

  @Test func aTrackFarFromTheFenceIsFittedWithTheFence() throws {
    let mission = ReportFixtures.mission()
    let far = ReportFixtures.offset(mission.coordinate, 300, 8_000)
    let track = (0..<20).map {
      ReportFixtures.fix(ReportFixtures.offset(far, 10, Double($0) * 50), Double($0) * 30)
    }
    let (_, svg) = render(MissionReport(mission: mission, track: track))
    let rect = mapRect(svg)
    let fence = svg.elements("circle", class: "fence")[0]
    let cx = Double(fence.attributes["cx"]!)!
    let cy = Double(fence.attributes["cy"]!)!
    let margin = Double(svg.elements("circle", class: "exit-margin")[0].attributes["r"]!)!
    #expect(cx - margin >= rect.minX && cx + margin <= rect.maxX)
    #expect(cy - margin >= rect.minY && cy + margin <= rect.maxY)
    let points = ParsedSVG.points(svg.elements("polyline", class: "track")[0].attributes["points"])
    #expect(points.count == 20)
    for p in points {
      #expect(
        p.x >= rect.minX + 20 && p.x <= rect.maxX - 20 && p.y >= rect.minY + 20
          && p.y <= rect.maxY - 20)
    }
    // The picture spans most of the map in one direction: it is fitted, not just contained.
    let xs = points.map(\.x) + [cx]
    let ys = points.map(\.y) + [cy]
    let spanX = xs.max()! - xs.min()!
    let spanY = ys.max()! - ys.min()!
    #expect(max(spanX / (rect.maxX - rect.minX), spanY / (rect.maxY - rect.minY)) > 0.7)
    // The fence is tiny at this scale, so the mission point carries its name.
    #expect(svg.elements("text", class: "mission-tag").map(\.text) == ["Mission M-7"])
  }

  @Test func aTrackAcrossTheAntimeridianStaysContinuous() throws {
    let center = try Coordinate(latitude: -16.8, longitude: 179.9990)
    let mission = ReportFixtures.mission(at: center)
    let track = (0..<30).map { i in
      ReportFixtures.fix(
        try! Coordinate(latitude: -16.8003, longitude: normalized(179.9975 + Double(i) * 0.0002)),
        Double(i) * 10)
    }
    #expect(track.contains { $0.coordinate.longitude < 0 })
    let (_, svg) = render(MissionReport(mission: mission, track: track))
    let points = ParsedSVG.points(svg.elements("polyline", class: "track")[0].attributes["points"])
    #expect(points.count == 30)
    let rect = mapRect(svg)
    for (a, b) in zip(points, points.dropFirst()) {
      #expect(b.x > a.x)  // due east, step by step
      #expect(b.x - a.x < 40)
    }
    #expect(points.allSatisfy { $0.x > rect.minX && $0.x < rect.maxX })
    for (point, fix) in zip(points, track) {
      let expected = expectedPagePoint(fix.coordinate, in: svg, center: center)
      #expect(abs(point.x - expected.x) <= 0.1 && abs(point.y - expected.y) <= 0.1)
    }
  }

  func normalized(_ longitude: Double) -> Double { longitude > 180 ? longitude - 360 : longitude }

  @Test func aVeryLongTrackIsThinnedButKeepsItsEnds() throws {
    var random = SplitMix64(seed: 42)
    let mission = ReportFixtures.mission()
    var position = ReportFixtures.offset(mission.coordinate, 200, 2_000)
    var heading = 30.0
    var track: [Fix] = []
    for i in 0..<30_000 {
      heading += Double.random(in: -25...25, using: &random)
      position = ReportFixtures.offset(
        position, heading, Double.random(in: 0.5...3, using: &random))
      track.append(ReportFixtures.fix(position, Double(i)))
    }
    let (text, svg) = render(MissionReport(mission: mission, track: track))
    #expect(svg.complete)
    let polylines = svg.elements("polyline", class: "track")
    try #require(polylines.count == 1)
    let points = ParsedSVG.points(polylines[0].attributes["points"])
    #expect(points.count <= renderer.maximumTrackPoints)
    #expect(points.count > 500)
    #expect(polylines[0].attributes["data-fixes"] == "30000")
    let first = expectedPagePoint(track[0].coordinate, in: svg, center: mission.coordinate)
    let last = expectedPagePoint(
      track[track.count - 1].coordinate, in: svg, center: mission.coordinate)
    #expect(abs(points[0].x - first.x) <= 0.1 && abs(points[0].y - first.y) <= 0.1)
    #expect(abs(points.last!.x - last.x) <= 0.1 && abs(points.last!.y - last.y) <= 0.1)
    #expect(text.utf8.count < 400_000)
    #expect(svg.elements("text", class: "time-label").count <= renderer.targetTimeLabels + 2)
  }

  @Test func htmlWrapsTheSameSVG() throws {
    let report = ReportFixtures.walkingReport()
    let html = renderer.html(report)
    let svg = renderer.svg(report)
    #expect(html.hasPrefix("<!DOCTYPE html>\n<html lang=\"en\">"))
    #expect(html.contains("<meta charset=\"utf-8\">"))
    #expect(html.contains("<title>Mission M-7: Photograph the shop front</title>"))
    let body = svg.dropFirst("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n".count)
    #expect(html.contains(body))
    #expect(html.hasSuffix("</body>\n</html>\n"))
    #expect(renderer.render(report, as: .html) == html)
    #expect(renderer.render(report, as: .svg) == svg)
  }

  @Test func theFactsNameArrivalDistanceAndFixes() throws {
    let report = ReportFixtures.walkingReport()
    let (_, svg) = render(report)
    var facts: [String: String] = [:]
    for group in svg.elements("g", class: "fact") {
      let index = svg.elements.firstIndex {
        $0.attributes["data-key"] == group.attributes["data-key"]
      }!
      facts[group.attributes["data-key"]!] = svg.elements[index + 2].text
    }
    #expect(facts["state"] == "arrived")
    #expect(facts["point"] == "59.85860, 17.63890")
    #expect(facts["fixes"] == "\(report.track.count) delivered")
    #expect(facts["start"] == "2024-05-01 10:00:02")
    #expect(facts["arrival"] == ReportRenderer.dateTimeText(report.arrivalTime!))
    #expect(facts["travelled"] == ReportRenderer.distanceText(report.travelledMeters))
    #expect(facts["geofence"] == "50 m + 20 m margin")
    // The travelled distance matches the fixture's own running total (last fix event).
    let last = report.events.last { if case .fix = $0.kind { true } else { false } }!
    guard case .fix(_, _, let travelled) = last.kind else { return }
    #expect(abs(report.travelledMeters - travelled) < 1e-6)
  }

  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/xmllint")))
  func xmllintAcceptsTheSampleAndItIsWrittenForLooking() throws {
    // Writes the sample where a person can render it:
    // rsvg-convert $TMPDIR/missiontrack-report-sample/report.svg -o report.png
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("missiontrack-report-sample")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let mission = ReportFixtures.mission()
    let far = ReportFixtures.offset(mission.coordinate, 300, 8_000)
    var random = SplitMix64(seed: 1)
    var position = far
    var heading = 0.0
    let long = (0..<20_000).map { i -> Fix in
      heading += Double.random(in: -20...20, using: &random)
      position = ReportFixtures.offset(position, heading, 1.5)
      return ReportFixtures.fix(position, Double(i))
    }
    let dateLine = try Coordinate(latitude: -16.8, longitude: 179.999)
    let cases: [(String, MissionReport)] = [
      ("report.svg", ReportFixtures.walkingReport()),
      ("empty.svg", MissionReport(mission: ReportFixtures.mission(title: "A & <b>"), track: [])),
      ("single.svg", MissionReport(mission: mission, track: [ReportFixtures.fix(far, 0)])),
      ("far-long.svg", MissionReport(mission: mission, track: long)),
      (
        "antimeridian.svg",
        MissionReport(
          mission: ReportFixtures.mission(at: dateLine),
          track: (0..<40).map { i in
            let along = Double(i - 20) * 12
            return ReportFixtures.fix(
              ReportFixtures.offset(dateLine, along < 0 ? 260 : 80, abs(along)), Double(i) * 9)
          })
      ),
    ]
    for (name, report) in cases {
      let url = directory.appendingPathComponent(name)
      try renderer.svg(report).write(to: url, atomically: true, encoding: .utf8)
      let process = Process()
      process.executableURL = URL(fileURLWithPath: "/usr/bin/xmllint")
      process.arguments = ["--noout", url.path]
      let errors = Pipe()
      process.standardError = errors
      try process.run()
      process.waitUntilExit()
      let message = String(
        decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      #expect(process.terminationStatus == 0, "\(name): \(message)")
    }
    let html = directory.appendingPathComponent("report.html")
    try renderer.html(ReportFixtures.walkingReport()).write(
      to: html, atomically: true, encoding: .utf8)
  }
}
