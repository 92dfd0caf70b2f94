import Foundation
import MissionTracking

/// Draws a `MissionReport` as a self-contained SVG map (or an HTML page holding it): the
/// track, the geofence and its exit margin, the mission point, fence-event markers, times
/// along the track, a scale bar, a north arrow, a legend and a title block.
///
/// The picture needs nothing outside itself: no tiles, no network, no external fonts or
/// scripts (text uses the viewer's sans-serif font). Positions are drawn in the azimuthal
/// equidistant projection about the mission point (`LocalProjection`), north up, one scale
/// for both axes, so metres on the page are true within the drawn area. Everything is fitted:
/// the view holds the fence with its margin and the whole track, however far apart.
public struct ReportRenderer: Sendable {
  /// Page width in pixels.
  public var width: Double = 1120
  /// Page height in pixels.
  public var height: Double = 800
  /// A step between fixes longer than this (seconds) breaks the track line; the break is
  /// drawn as a faint dotted line.
  public var gapSeconds: Double = 120
  /// The most polyline points drawn in all; longer tracks are thinned.
  public var maximumTrackPoints: Int = 4000
  /// Fixes closer than this on the page (pixels) to the previous drawn one are skipped.
  public var minimumPointSpacingPixels: Double = 0.5
  /// About how many time labels to put along the track.
  public var targetTimeLabels: Int = 10

  /// Width of the side panel (title block, legend, events) in pixels.
  static let panelWidth: Double = 300

  /// Creates a renderer with the default page.
  public init() {}

  /// The report in `format`.
  public func render(_ report: MissionReport, as format: ReportFormat) -> String {
    switch format {
    case .svg: svg(report)
    case .html: html(report)
    }
  }

  /// The report as a standalone SVG document (with XML declaration).
  /// - Complexity: O(n log n) in the number of fixes.
  public func svg(_ report: MissionReport) -> String {
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + svgElement(report)
  }

  /// The report as a minimal HTML5 page with the SVG inline.
  public func html(_ report: MissionReport) -> String {
    let title = SVGText.escape(documentTitle(report))
    return """
      <!DOCTYPE html>
      <html lang="en">
      <head>
      <meta charset="utf-8">
      <meta name="viewport" content="width=device-width, initial-scale=1">
      <title>\(title)</title>
      <style>body{margin:0;padding:16px;background:#e9e9e4}svg{max-width:100%;height:auto;\
      display:block;margin:0 auto;box-shadow:0 1px 4px rgba(0,0,0,.25)}</style>
      </head>
      <body>
      \(svgElement(report))
      </body>
      </html>

      """
  }

  /// `Mission ID: title`, for the SVG `<title>` and the HTML page title (not escaped).
  func documentTitle(_ report: MissionReport) -> String {
    let title = report.mission.title.isEmpty ? "" : ": \(report.mission.title)"
    return "Mission \(report.mission.id)\(title)"
  }

  /// The `<svg>` element and everything in it.
  func svgElement(_ report: MissionReport) -> String {
    let n = SVGText.number
    let map = layoutMap(report)
    var out = ""
    out.reserveCapacity(64 * 1024 + report.track.count * 40)
    out += "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"\(n(width))\" "
    out += "height=\"\(n(height))\" viewBox=\"0 0 \(n(width)) \(n(height))\" "
    out += "font-family=\"DejaVu Sans, Verdana, Helvetica, Arial, sans-serif\" "
    out += "role=\"img\" aria-labelledby=\"report-title report-desc\">\n"
    out += "<title id=\"report-title\">\(SVGText.escape(documentTitle(report)))</title>\n"
    out += "<desc id=\"report-desc\">\(SVGText.escape(description(report)))</desc>\n"
    out += "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n"
    out += drawMap(report, map)
    out += drawPanel(report, map)
    out += "</svg>\n"
    return out
  }

  private func description(_ report: MissionReport) -> String {
    var parts = ["Map of mission \(report.mission.id)"]
    parts.append("\(report.track.count) delivered fixes")
    parts.append("travelled \(ReportRenderer.distanceText(report.travelledMeters))")
    if let arrival = report.arrivalTime {
      parts.append("arrived \(ReportRenderer.clockText(arrival)) UTC")
    }
    parts.append(
      "projection: azimuthal equidistant about the mission point "
        + "(\(report.mission.coordinate)), north up")
    return parts.joined(separator: "; ")
  }
}
