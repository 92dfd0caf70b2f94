import Foundation
import MissionTracking

extension ReportRenderer {
  /// The side panel: title block, facts, legend and the list of events.
  func drawPanel(_ report: MissionReport, _ map: ReportMapLayout) -> String {
    let n = SVGText.number
    let left = width - ReportRenderer.panelWidth - 8
    let textWidth = ReportRenderer.panelWidth - 16
    let bottom = height - 16
    var out = "<g id=\"panel\">\n"
    var y = 34.0

    func line(
      _ text: String, size: Double, weight: String = "normal", color: String = "#1a1a1a",
      x: Double? = nil, cssClass: String? = nil
    ) {
      let classAttribute = cssClass.map { " class=\"\($0)\"" } ?? ""
      out += "<text\(classAttribute) x=\"\(n(x ?? left))\" y=\"\(n(y))\" font-size=\"\(n(size))\" "
      if weight != "normal" { out += "font-weight=\"\(weight)\" " }
      out += "fill=\"\(color)\">\(SVGText.escape(text))</text>\n"
    }
    func characters(_ size: Double) -> Int { max(Int(textWidth / (size * 0.62)), 8) }

    let mission = report.mission
    for text in ReportRenderer.wrap("Mission \(mission.id)", width: characters(20), maximumLines: 2)
    {
      line(text, size: 20, weight: "bold", cssClass: "mission-id")
      y += 24
    }
    for text in ReportRenderer.wrap(mission.title, width: characters(15), maximumLines: 3) {
      line(text, size: 15, cssClass: "mission-title")
      y += 19
    }
    var reward: [String] = []
    if let amount = mission.reward, !amount.isEmpty {
      reward.append([amount, mission.currency ?? ""].filter { !$0.isEmpty }.joined(separator: " "))
    }
    if let address = mission.address, !address.isEmpty { reward.append(address) }
    for text in ReportRenderer.wrap(
      reward.joined(separator: " \u{00B7} "), width: characters(13), maximumLines: 2)
    {
      line(text, size: 13, color: "#333333", cssClass: "mission-reward")
      y += 17
    }
    y += 6

    // Facts, key and value columns.
    var facts: [(String, String)] = [
      ("State", mission.state.rawValue),
      (
        "Point",
        String(
          format: "%.5f, %.5f", mission.coordinate.latitude, mission.coordinate.longitude)
      ),
    ]
    if let start = report.startTime { facts.append(("Start", ReportRenderer.dateTimeText(start))) }
    if let end = report.endTime { facts.append(("End", ReportRenderer.dateTimeText(end))) }
    if let start = report.startTime, let end = report.endTime {
      facts.append(("Duration", ReportRenderer.durationText(end.timeIntervalSince(start))))
    }
    facts.append(("Travelled", ReportRenderer.distanceText(report.travelledMeters)))
    facts.append(("Fixes", "\(report.track.count) delivered"))
    facts.append(
      ("Arrival", report.arrivalTime.map { ReportRenderer.dateTimeText($0) } ?? "not arrived"))
    if let closest = report.closestApproachMeters {
      facts.append(("Closest", "\(ReportRenderer.distanceText(closest)) from point"))
    }
    facts.append(
      (
        "Geofence",
        "\(ReportRenderer.distanceText(report.fenceRadiusMeters)) + "
          + "\(ReportRenderer.distanceText(report.exitMarginMeters)) margin"
      ))
    for (key, value) in facts {
      out += "<g class=\"fact\" data-key=\"\(SVGText.escape(key.lowercased()))\">"
      out += "<text x=\"\(n(left))\" y=\"\(n(y))\" font-size=\"13\" fill=\"#666666\">"
      out += "\(SVGText.escape(key))</text>"
      out += "<text x=\"\(n(left + 78))\" y=\"\(n(y))\" font-size=\"13\" fill=\"#1a1a1a\">"
      out += "\(SVGText.escape(value))</text></g>\n"
      y += 18
    }
    line("Times are UTC.", size: 11, color: "#666666")
    y += 22

    // Legend.
    line("Legend", size: 14, weight: "bold")
    y += 19
    out += drawLegend(report, map, left: left, y: &y)
    y += 12

    // Events.
    let listed = report.events.filter {
      if case .fix = $0.kind { return false }
      return true
    }
    guard !listed.isEmpty, y + 40 < bottom else {
      out += "</g>\n"
      return out
    }
    line("Events", size: 14, weight: "bold")
    y += 20
    let rows = Int((bottom - y) / 17) + 1
    let shown = listed.count <= rows ? listed.count : max(rows - 1, 0)
    for event in listed.prefix(shown) {
      let text = ReportRenderer.clockText(event.time) + "  " + ReportRenderer.eventText(event)
      let clipped =
        ReportRenderer.wrap(text, width: characters(12) - 3, maximumLines: 1).first ?? ""
      if let marker = ReportRenderer.marker(for: event) {
        // A small copy of the map symbol, so the list and the map can be matched.
        out += "<g transform=\"translate(\(n(left + 7)) \(n(y - 4))) scale(0.62)\">"
        out += marker.svg(at: PlanePoint(x: 0, y: 0), title: marker.legendLabel)
          .replacingOccurrences(of: "class=\"marker \(marker.rawValue)\"", with: "")
        out += "</g>"
      }
      line(clipped, size: 12, color: "#1a1a1a", x: left + 18, cssClass: "event-row")
      y += 17
    }
    if shown < listed.count {
      line("\u{2026} and \(listed.count - shown) more", size: 12, color: "#666666")
    }
    out += "</g>\n"
    return out
  }

  private func drawLegend(
    _ report: MissionReport, _ map: ReportMapLayout, left: Double, y: inout Double
  ) -> String {
    let n = SVGText.number
    var out = ""
    func entry(_ kind: String, _ label: String, icon: (PlanePoint) -> String) {
      let center = PlanePoint(x: left + 12, y: y)
      out += "<g class=\"legend-entry\" data-kind=\"\(kind)\">\(icon(center))"
      out += "<text x=\"\(n(left + 30))\" y=\"\(n(y + 4.5))\" font-size=\"13\" fill=\"#1a1a1a\">"
      out += "\(SVGText.escape(label))</text></g>\n"
      y += 22
    }
    let radius = report.fenceRadiusMeters
    if report.track.count > 1 {
      entry("track", "Track (delivered fixes)") { c in
        "<path d=\"M\(n(c.x - 11)) \(n(c.y + 4))L\(n(c.x - 3)) \(n(c.y - 4))L\(n(c.x + 4)) "
          + "\(n(c.y + 3))L\(n(c.x + 11)) \(n(c.y - 3))\" fill=\"none\" stroke=\"#0072B2\" "
          + "stroke-width=\"3\" stroke-linejoin=\"round\" stroke-linecap=\"round\"/>"
      }
    }
    if map.segmentRanges.count > 1 {
      entry("gap", "No fix delivered for \(ReportRenderer.durationText(gapSeconds))+") { c in
        "<path d=\"M\(n(c.x - 11)) \(n(c.y))H\(n(c.x + 11))\" stroke=\"#0072B2\" "
          + "stroke-width=\"2\" stroke-linecap=\"round\" stroke-dasharray=\"0.1 6\"/>"
      }
    }
    entry("fence", "Geofence, radius \(ReportRenderer.distanceText(radius))") { c in
      "<circle cx=\"\(n(c.x))\" cy=\"\(n(c.y))\" r=\"8\" fill=\"#009E73\" fill-opacity=\"0.14\" "
        + "stroke=\"#009E73\" stroke-width=\"2\"/>"
    }
    entry(
      "exit-margin",
      "Exit beyond \(ReportRenderer.distanceText(radius + report.exitMarginMeters))"
    ) { c in
      "<circle cx=\"\(n(c.x))\" cy=\"\(n(c.y))\" r=\"8\" fill=\"none\" stroke=\"#007a5a\" "
        + "stroke-width=\"1.5\" stroke-dasharray=\"4 3\"/>"
    }
    entry("mission-point", "Mission point") { c in
      "<path d=\"M\(n(c.x - 10)) \(n(c.y))H\(n(c.x + 10))M\(n(c.x)) \(n(c.y - 10))V\(n(c.y + 10))\" "
        + "stroke=\"#111111\" stroke-width=\"1.6\"/><circle cx=\"\(n(c.x))\" cy=\"\(n(c.y))\" "
        + "r=\"3.5\" fill=\"#111111\" stroke=\"#ffffff\" stroke-width=\"1\"/>"
    }
    var present: [ReportMarker] = []
    if !report.track.isEmpty { present.append(.start) }
    if report.track.count > 1 { present.append(.end) }
    let eventMarkers = Set(map.events.map(\.marker))
    present += [ReportMarker.enter, .dwell, .exit, .crossed].filter { eventMarkers.contains($0) }
    for marker in present {
      entry(marker.rawValue, marker.legendLabel) { c in
        // The legend copy of a symbol is not a map marker: strip its class.
        marker.svg(at: c, title: marker.legendLabel)
          .replacingOccurrences(of: "class=\"marker \(marker.rawValue)\"", with: "")
      }
    }
    if report.track.count > 1 {
      entry("time", "Fix time along the track") { c in
        "<circle cx=\"\(n(c.x))\" cy=\"\(n(c.y))\" r=\"2.8\" fill=\"#ffffff\" stroke=\"#0072B2\" "
          + "stroke-width=\"1.6\"/>"
      }
    }
    return out
  }
}
