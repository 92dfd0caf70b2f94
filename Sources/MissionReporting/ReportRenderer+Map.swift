import Foundation
import MissionTracking

extension ReportRenderer {
  /// Left, top, width and height of the map rectangle.
  var mapRect: (left: Double, top: Double, width: Double, height: Double) {
    (12, 12, max(width - ReportRenderer.panelWidth - 36, 100), max(height - 24, 100))
  }

  /// Projects, fits, segments and thins the track and places the events.
  func layoutMap(_ report: MissionReport) -> ReportMapLayout {
    let projection = LocalProjection(center: report.mission.coordinate)
    let plane = report.track.map { projection.project($0.coordinate) }
    // The fence with its margin and the track.
    let rect = mapRect
    let frame = MapFrame(
      left: rect.left, top: rect.top, width: rect.width, height: rect.height,
      fences: [
        (PlanePoint(x: 0, y: 0), report.fenceRadiusMeters + report.exitMarginMeters)
      ], points: plane, paddingPixels: 56)
    let fixPoints = plane.map(frame.page)
    let ranges = TrackThinner.segments(
      times: report.track.map(\.time), gapSeconds: gapSeconds)
    let thinned = TrackThinner.thin(
      ranges.map { Array(fixPoints[$0]) }, minimumSpacing: minimumPointSpacingPixels,
      maximumPoints: maximumTrackPoints)
    let missionPoint = frame.page(PlanePoint(x: 0, y: 0))
    let events = report.fenceEvents.compactMap { item -> ReportMapLayout.PlacedEvent? in
      guard
        let point = position(
          of: item.event, in: report, fixPoints: fixPoints, missionPoint: missionPoint)
      else { return nil }
      return ReportMapLayout.PlacedEvent(event: item.event, marker: item.marker, point: point)
    }
    return ReportMapLayout(
      frame: frame, fixPoints: fixPoints, segmentRanges: ranges,
      drawnSegments: thinned.segments, thinningSpacingPixels: thinned.spacing,
      missionPoint: missionPoint,
      scaleBar: ScaleBar(pixelsPerMeter: frame.pixelsPerMeter, maximumPixels: 170),
      events: events)
  }

  /// Where an event happened on the page: interpolated along the track by time; a `crossed`
  /// event at the point of its segment nearest the mission. Nil without a track.
  func position(
    of event: TrackingEvent, in report: MissionReport, fixPoints: [PlanePoint],
    missionPoint: PlanePoint
  ) -> PlanePoint? {
    guard let first = report.track.first, let last = report.track.last else { return nil }
    if event.time <= first.time { return fixPoints[0] }
    if event.time >= last.time { return fixPoints[fixPoints.count - 1] }
    // The first fix at or after the event: the event lies on the step that ends there (a
    // `crossed` is reported with the fix after the pass).
    var low = 1
    var high = report.track.count - 1
    while low < high {
      let middle = (low + high) / 2
      if report.track[middle].time >= event.time { high = middle } else { low = middle + 1 }
    }
    let a = fixPoints[high - 1]
    let b = fixPoints[high]
    let span = report.track[high].time.timeIntervalSince(report.track[high - 1].time)
    if case .crossed = event.kind {
      return closestPoint(on: a, b, to: missionPoint)
    }
    let t = span > 0 ? event.time.timeIntervalSince(report.track[high - 1].time) / span : 1
    return PlanePoint(x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t)
  }

  private func closestPoint(on a: PlanePoint, _ b: PlanePoint, to p: PlanePoint) -> PlanePoint {
    let dx = b.x - a.x
    let dy = b.y - a.y
    let length2 = dx * dx + dy * dy
    guard length2 > 0 else { return a }
    let t = min(1, max(0, ((p.x - a.x) * dx + (p.y - a.y) * dy) / length2))
    return PlanePoint(x: a.x + dx * t, y: a.y + dy * t)
  }

  /// The map: background, grid, fence, track, markers, time labels, scale bar, north arrow.
  func drawMap(_ report: MissionReport, _ map: ReportMapLayout) -> String {
    let n = SVGText.number
    let frame = map.frame
    let rect = mapRect
    let scale = frame.pixelsPerMeter
    var out = "<defs><clipPath id=\"map-clip\"><rect x=\"\(n(rect.left))\" y=\"\(n(rect.top))\" "
    out += "width=\"\(n(rect.width))\" height=\"\(n(rect.height))\"/></clipPath></defs>\n"
    out += "<g id=\"map\" data-px-per-m=\"\(scale)\" clip-path=\"url(#map-clip)\">\n"
    out += "<rect x=\"\(n(rect.left))\" y=\"\(n(rect.top))\" width=\"\(n(rect.width))\" "
    out += "height=\"\(n(rect.height))\" fill=\"#f5f4ef\"/>\n"
    out += drawGrid(map)

    // Geofence and exit margin.
    let center = map.missionPoint
    let radius = report.fenceRadiusMeters
    out += "<circle class=\"exit-margin\" cx=\"\(n(center.x))\" cy=\"\(n(center.y))\" "
    out += "r=\"\(n((radius + report.exitMarginMeters) * scale))\" fill=\"none\" "
    out += "stroke=\"#007a5a\" stroke-width=\"1.5\" stroke-dasharray=\"7 5\"/>\n"
    out += "<circle class=\"fence\" cx=\"\(n(center.x))\" cy=\"\(n(center.y))\" "
    out += "r=\"\(n(radius * scale))\" fill=\"#009E73\" fill-opacity=\"0.14\" "
    out += "stroke=\"#009E73\" stroke-width=\"2\"/>\n"

    // Track: gap connectors, white casing, then the line.
    out += drawTrack(report, map)

    // Labels are placed around markers, so markers are known first.
    var placer = LabelPlacer(
      bounds: LabelPlacer.Box(
        minX: rect.left + 4, minY: rect.top + 4, maxX: rect.left + rect.width - 4,
        maxY: rect.top + rect.height - 4),
      obstacles: furnitureBoxes(), track: map.drawnSegments)
    placer.reserve(box(around: center, radius: 8))
    var markers = ""
    if let first = map.fixPoints.first, let last = map.fixPoints.last {
      let startTitle = "Start " + ReportRenderer.dateTimeText(report.track[0].time)
      let endTitle = "End " + ReportRenderer.dateTimeText(report.track[report.track.count - 1].time)
      markers += ReportMarker.start.svg(at: first, title: startTitle) + "\n"
      if report.track.count > 1 {
        markers += ReportMarker.end.svg(at: last, title: endTitle) + "\n"
      }
      placer.reserve(box(around: first, radius: ReportMarker.start.radiusPixels))
      placer.reserve(box(around: last, radius: ReportMarker.end.radiusPixels))
    }
    // Symbols that would cover the mission point or each other are moved aside on a short
    // leader line from where the event happened.
    var occupied: [(point: PlanePoint, radius: Double)] = [(center, 9)]
    if let first = map.fixPoints.first { occupied.append((first, ReportMarker.start.radiusPixels)) }
    if let last = map.fixPoints.last { occupied.append((last, ReportMarker.end.radiusPixels)) }
    for placed in map.events {
      let radius = placed.marker.radiusPixels
      let shown = ReportRenderer.freeSpot(near: placed.point, radius: radius, avoiding: occupied)
      occupied.append((shown, radius))
      let title =
        ReportRenderer.clockText(placed.event.time) + " "
        + ReportRenderer.eventText(placed.event)
      if shown != placed.point {
        markers += "<path class=\"leader\" d=\"M\(n(placed.point.x)) \(n(placed.point.y))"
        markers += "L\(n(shown.x)) \(n(shown.y))\" stroke=\"#1b1b1b\" stroke-width=\"1.2\"/>"
        markers += "<circle cx=\"\(n(placed.point.x))\" cy=\"\(n(placed.point.y))\" r=\"2.2\" "
        markers += "fill=\"#1b1b1b\"/>\n"
      }
      markers += placed.marker.svg(at: shown, title: title, eventAt: placed.point) + "\n"
      placer.reserve(box(around: shown, radius: radius))
      placer.reserve(box(around: placed.point, radius: 3))
    }
    out += drawTimeLabels(report, map, placer: &placer)
    // A fence too small to see at this scale (the track is far away) gets a name tag.
    if radius * scale < 12 {
      let name =
        ReportRenderer.wrap(
          "Mission \(report.mission.id)", width: 28, maximumLines: 1
        ).first ?? ""
      if let tag = placer.place(name, near: center, fontSize: 13, gap: 14) {
        out += "<text class=\"mission-tag\" x=\"\(n(tag.x))\" y=\"\(n(tag.baselineY))\" "
        out += "text-anchor=\"\(tag.anchor)\" font-size=\"13\" font-weight=\"bold\" "
        out += "fill=\"#111111\" stroke=\"#ffffff\" stroke-width=\"3.5\" "
        out +=
          "stroke-linejoin=\"round\" paint-order=\"stroke\">\(SVGText.escape(tag.text))</text>\n"
      }
    }
    out += markers
    // The mission point last, so that a marker standing on it cannot hide it.
    out += drawMissionPoint(at: center, title: "Mission point \(report.mission.coordinate)")
    if report.track.isEmpty {
      out += drawNote("No fixes were recorded for this mission.", map, report)
    }
    out += "</g>\n"
    out += "<rect x=\"\(n(rect.left))\" y=\"\(n(rect.top))\" width=\"\(n(rect.width))\" "
    out += "height=\"\(n(rect.height))\" fill=\"none\" stroke=\"#8a8a80\" stroke-width=\"1\"/>\n"
    out += drawScaleBar(map.scaleBar)
    out += drawNorthArrow()
    return out
  }

  /// `point` itself when a symbol of `radius` there overlaps none of `occupied`; else the
  /// nearest free spot 24 or 36 px away in one of eight directions (the point if none is).
  static func freeSpot(
    near point: PlanePoint, radius: Double, avoiding occupied: [(point: PlanePoint, radius: Double)]
  ) -> PlanePoint {
    func isFree(_ p: PlanePoint) -> Bool {
      occupied.allSatisfy { p.distance(to: $0.point) >= radius + $0.radius - 2 }
    }
    if isFree(point) { return point }
    for distance in [24.0, 36.0] {
      for step in 0..<8 {
        // Start up-right (labels usually sit right), go round.
        let angle = Double.pi / 4 * (Double(step) - 1)
        let p = PlanePoint(x: point.x + distance * cos(angle), y: point.y + distance * sin(angle))
        if isFree(p) { return p }
      }
    }
    return point
  }

  private func box(around point: PlanePoint, radius: Double) -> LabelPlacer.Box {
    LabelPlacer.Box(
      minX: point.x - radius, minY: point.y - radius, maxX: point.x + radius,
      maxY: point.y + radius)
  }

  /// The scale bar (bottom left) and north arrow (top right) corners.
  private func furnitureBoxes() -> [LabelPlacer.Box] {
    let rect = mapRect
    return [
      LabelPlacer.Box(
        minX: rect.left, minY: rect.top + rect.height - 52, maxX: rect.left + 210,
        maxY: rect.top + rect.height),
      LabelPlacer.Box(
        minX: rect.left + rect.width - 56, minY: rect.top, maxX: rect.left + rect.width,
        maxY: rect.top + 74),
    ]
  }

  /// Faint lines every scale-bar length east and north of the mission point.
  private func drawGrid(_ map: ReportMapLayout) -> String {
    let n = SVGText.number
    let rect = mapRect
    let step = map.scaleBar.pixels
    guard step >= 24 else { return "" }
    var path = ""
    let origin = map.missionPoint
    var k = ((rect.left - origin.x) / step).rounded(.up)
    while origin.x + k * step <= rect.left + rect.width {
      let x = origin.x + k * step
      path += "M\(n(x)) \(n(rect.top))V\(n(rect.top + rect.height))"
      k += 1
    }
    k = ((rect.top - origin.y) / step).rounded(.up)
    while origin.y + k * step <= rect.top + rect.height {
      let y = origin.y + k * step
      path += "M\(n(rect.left)) \(n(y))H\(n(rect.left + rect.width))"
      k += 1
    }
    return
      "<path class=\"grid\" d=\"\(path)\" stroke=\"#e1dfd6\" stroke-width=\"1\" fill=\"none\"/>\n"
  }

  private func drawMissionPoint(at p: PlanePoint, title: String) -> String {
    let n = SVGText.number
    let arms =
      "M\(n(p.x - 15)) \(n(p.y))H\(n(p.x - 5))M\(n(p.x + 5)) \(n(p.y))H\(n(p.x + 15))"
      + "M\(n(p.x)) \(n(p.y - 15))V\(n(p.y - 5))M\(n(p.x)) \(n(p.y + 5))V\(n(p.y + 15))"
    var out = "<g class=\"mission-point\"><title>\(SVGText.escape(title))</title>"
    out += "<path d=\"\(arms)\" stroke=\"#ffffff\" stroke-width=\"3.6\" stroke-linecap=\"round\"/>"
    out += "<path d=\"\(arms)\" stroke=\"#111111\" stroke-width=\"1.6\"/>"
    out += "<circle cx=\"\(n(p.x))\" cy=\"\(n(p.y))\" r=\"3.5\" fill=\"#111111\" "
    out += "stroke=\"#ffffff\" stroke-width=\"1\"/></g>\n"
    return out
  }

  private func drawTrack(_ report: MissionReport, _ map: ReportMapLayout) -> String {
    let n = SVGText.number
    var out = ""
    // Dotted connectors across time gaps.
    for (previous, next) in zip(map.segmentRanges, map.segmentRanges.dropFirst()) {
      let a = map.fixPoints[previous.upperBound - 1]
      let b = map.fixPoints[next.lowerBound]
      let seconds = report.track[next.lowerBound].time.timeIntervalSince(
        report.track[previous.upperBound - 1].time)
      out += "<line class=\"gap\" x1=\"\(n(a.x))\" y1=\"\(n(a.y))\" x2=\"\(n(b.x))\" "
      out += "y2=\"\(n(b.y))\" stroke=\"#0072B2\" stroke-width=\"2\" stroke-linecap=\"round\" "
      out += "stroke-dasharray=\"0.1 6\"><title>no fix delivered for "
      out += "\(SVGText.escape(ReportRenderer.durationText(seconds)))</title></line>\n"
    }
    for (range, points) in zip(map.segmentRanges, map.drawnSegments) {
      if points.count == 1 {
        let p = points[0]
        out += "<circle class=\"track-point\" data-fixes=\"1\" cx=\"\(n(p.x))\" cy=\"\(n(p.y))\" "
        out += "r=\"3\" fill=\"#0072B2\"/>\n"
        continue
      }
      let list = points.map { "\(n($0.x)),\(n($0.y))" }.joined(separator: " ")
      out += "<polyline class=\"track-casing\" points=\"\(list)\" fill=\"none\" "
      out += "stroke=\"#ffffff\" stroke-opacity=\"0.8\" stroke-width=\"6\" "
      out += "stroke-linejoin=\"round\" stroke-linecap=\"round\"/>\n"
      out += "<polyline class=\"track\" data-fixes=\"\(range.count)\" "
      out += "data-points=\"\(points.count)\" points=\"\(list)\" fill=\"none\" "
      out += "stroke=\"#0072B2\" stroke-width=\"3\" stroke-linejoin=\"round\" "
      out += "stroke-linecap=\"round\"/>\n"
    }
    return out
  }

  /// The tick interval (seconds) giving at most about `targetTimeLabels` labels.
  func timeLabelInterval(durationSeconds: Double) -> Double {
    let steps: [Double] = [
      10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10_800, 21_600, 43_200, 86_400,
    ]
    let target = Double(max(targetTimeLabels, 1))
    return steps.first { durationSeconds / $0 <= target }
      ?? (durationSeconds / target / 86_400).rounded(.up) * 86_400
  }

  private func drawTimeLabels(
    _ report: MissionReport, _ map: ReportMapLayout, placer: inout LabelPlacer
  ) -> String {
    guard let first = report.track.first, let last = report.track.last else { return "" }
    let n = SVGText.number
    // Candidates: start and end first (they matter most), then round clock times.
    var candidates: [(index: Int, isEnd: Bool)] = [(0, true)]
    if report.track.count > 1 { candidates.append((report.track.count - 1, true)) }
    let interval = timeLabelInterval(
      durationSeconds: last.time.timeIntervalSince(first.time))
    var tick = (first.time.timeIntervalSince1970 / interval).rounded(.down) * interval + interval
    var index = 0
    while tick < last.time.timeIntervalSince1970 {
      while index < report.track.count, report.track[index].time.timeIntervalSince1970 < tick {
        index += 1
      }
      guard index < report.track.count else { break }
      // A fix long after the tick (after a gap) stands for a later tick, not this one.
      if report.track[index].time.timeIntervalSince1970 - tick < interval {
        candidates.append((index, false))
      }
      tick += interval
    }
    var labelled: [PlanePoint] = []
    var dots = ""
    var texts = ""
    for candidate in candidates {
      let point = map.fixPoints[candidate.index]
      if !candidate.isEnd, labelled.contains(where: { $0.distance(to: point) < 36 }) { continue }
      let text = ReportRenderer.clockText(report.track[candidate.index].time)
      guard
        let placement = placer.place(
          text, near: point, fontSize: 12, gap: candidate.isEnd ? 11 : 7)
      else { continue }
      labelled.append(point)
      if !candidate.isEnd {
        dots += "<circle class=\"time-dot\" cx=\"\(n(point.x))\" cy=\"\(n(point.y))\" r=\"2.8\" "
        dots += "fill=\"#ffffff\" stroke=\"#0072B2\" stroke-width=\"1.6\"/>\n"
      }
      texts += "<text class=\"time-label\" x=\"\(n(placement.x))\" y=\"\(n(placement.baselineY))\" "
      texts += "text-anchor=\"\(placement.anchor)\" font-size=\"12\" fill=\"#1a1a1a\" "
      texts += "stroke=\"#ffffff\" stroke-width=\"3.5\" stroke-linejoin=\"round\" "
      texts += "paint-order=\"stroke\">\(SVGText.escape(text))</text>\n"
    }
    return dots + texts
  }

  private func drawNote(_ text: String, _ map: ReportMapLayout, _ report: MissionReport) -> String {
    let n = SVGText.number
    let rect = mapRect
    let outer =
      (report.fenceRadiusMeters + report.exitMarginMeters)
      * map.frame.pixelsPerMeter
    var y = map.missionPoint.y + outer + 30
    if y > rect.top + rect.height - 60 { y = map.missionPoint.y - outer - 20 }
    var out = "<text class=\"note\" x=\"\(n(map.missionPoint.x))\" y=\"\(n(y))\" "
    out += "text-anchor=\"middle\" font-size=\"16\" fill=\"#444444\" stroke=\"#ffffff\" "
    out += "stroke-width=\"4\" paint-order=\"stroke\">\(SVGText.escape(text))</text>\n"
    return out
  }

  private func drawScaleBar(_ bar: ScaleBar) -> String {
    let n = SVGText.number
    let rect = mapRect
    let x = rect.left + 16
    let y = rect.top + rect.height - 22
    let half = bar.pixels / 2
    var out = "<g class=\"scale-bar\" data-meters=\"\(bar.meters)\" data-px=\"\(bar.pixels)\">"
    out += "<rect x=\"\(n(x - 8))\" y=\"\(n(y - 24))\" width=\"\(n(bar.pixels + 16 + 40))\" "
    out += "height=\"38\" rx=\"4\" fill=\"#ffffff\" fill-opacity=\"0.85\"/>"
    out += "<rect x=\"\(n(x))\" y=\"\(n(y))\" width=\"\(n(half))\" height=\"6\" fill=\"#111111\"/>"
    out += "<rect x=\"\(n(x + half))\" y=\"\(n(y))\" width=\"\(n(half))\" height=\"6\" "
    out += "fill=\"#ffffff\" stroke=\"#111111\" stroke-width=\"1\"/>"
    out += "<rect x=\"\(n(x))\" y=\"\(n(y))\" width=\"\(n(bar.pixels))\" height=\"6\" "
    out += "fill=\"none\" stroke=\"#111111\" stroke-width=\"1\"/>"
    out += "<text x=\"\(n(x))\" y=\"\(n(y - 6))\" font-size=\"12\" fill=\"#111111\">0</text>"
    out += "<text x=\"\(n(x + bar.pixels))\" y=\"\(n(y - 6))\" font-size=\"12\" "
    out += "text-anchor=\"middle\" fill=\"#111111\">\(SVGText.escape(bar.label))</text>"
    out += "</g>\n"
    return out
  }

  private func drawNorthArrow() -> String {
    let n = SVGText.number
    let rect = mapRect
    let x = rect.left + rect.width - 30
    let y = rect.top + 18
    var out = "<g class=\"north-arrow\"><title>North is up</title>"
    out += "<rect x=\"\(n(x - 20))\" y=\"\(n(y - 8))\" width=\"40\" height=\"60\" rx=\"4\" "
    out += "fill=\"#ffffff\" fill-opacity=\"0.85\"/>"
    out += "<text x=\"\(n(x))\" y=\"\(n(y + 10))\" font-size=\"15\" font-weight=\"bold\" "
    out += "text-anchor=\"middle\" fill=\"#111111\">N</text>"
    out += "<polygon points=\"\(n(x)),\(n(y + 16)) \(n(x + 9)),\(n(y + 46)) \(n(x)),\(n(y + 39)) "
    out += "\(n(x - 9)),\(n(y + 46))\" fill=\"#111111\"/>"
    out += "</g>\n"
    return out
  }
}
