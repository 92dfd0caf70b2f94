/// A point symbol on the report map, each with its own shape and colour so that the kinds
/// stay apart in grey scale and for colour-blind readers (Okabe–Ito palette).
enum ReportMarker: String, Sendable, CaseIterable {
  /// The first delivered fix: a white disc with a black ring.
  case start
  /// The last delivered fix: a black square.
  case end
  /// A geofence enter: a green triangle pointing up.
  case enter
  /// Dwell time reached inside the fence: an orange diamond.
  case dwell
  /// A geofence exit: a vermilion triangle pointing down.
  case exit
  /// A fast pass through the fence between two fixes: a purple cross.
  case crossed

  /// The legend text.
  var legendLabel: String {
    switch self {
    case .start: "Start (first fix)"
    case .end: "End (last fix)"
    case .enter: "Enter geofence"
    case .dwell: "Dwell reached"
    case .exit: "Exit (beyond margin)"
    case .crossed: "Crossed between fixes"
    }
  }

  /// The fill colour.
  var color: String {
    switch self {
    case .start: "#ffffff"
    case .end: "#111111"
    case .enter: "#009E73"
    case .dwell: "#E69F00"
    case .exit: "#D55E00"
    case .crossed: "#CC79A7"
    }
  }

  /// Half the symbol's width in pixels, for keeping labels off it.
  var radiusPixels: Double {
    switch self {
    case .start, .end: 7
    case .enter, .dwell, .exit, .crossed: 9
    }
  }

  /// The symbol centred at `point`, as one SVG group with class `marker KIND`; `title` is
  /// shown as a tooltip by browsers (escaped here). `eventAt`, when given, is where the event
  /// happened (the symbol may be moved aside) and is kept in a `data-at` attribute.
  func svg(at point: PlanePoint, title: String, eventAt: PlanePoint? = nil) -> String {
    let x = point.x
    let y = point.y
    let n = SVGText.number
    let shape: String
    switch self {
    case .start:
      shape =
        "<circle cx=\"\(n(x))\" cy=\"\(n(y))\" r=\"6\" fill=\"\(color)\" stroke=\"#111111\" "
        + "stroke-width=\"2.5\"/>"
    case .end:
      shape =
        "<rect x=\"\(n(x - 6))\" y=\"\(n(y - 6))\" width=\"12\" height=\"12\" fill=\"\(color)\" "
        + "stroke=\"#ffffff\" stroke-width=\"1.5\"/>"
    case .enter:
      shape = polygon([(x, y - 9), (x + 8.5, y + 6), (x - 8.5, y + 6)])
    case .exit:
      shape = polygon([(x, y + 9), (x + 8.5, y - 6), (x - 8.5, y - 6)])
    case .dwell:
      shape = polygon([(x, y - 9), (x + 8, y), (x, y + 9), (x - 8, y)])
    case .crossed:
      let a = 7.5
      let b = 2.6
      // An X made of two crossing bars, as one outline.
      shape = polygon([
        (x - a, y - a + b), (x - a + b, y - a), (x, y - b), (x + a - b, y - a), (x + a, y - a + b),
        (x + b, y), (x + a, y + a - b), (x + a - b, y + a), (x, y + b), (x - a + b, y + a),
        (x - a, y + a - b), (x - b, y),
      ])
    }
    let at = eventAt.map { " data-at=\"\(SVGText.number($0.x)),\(SVGText.number($0.y))\"" } ?? ""
    return
      "<g class=\"marker \(rawValue)\"\(at)><title>\(SVGText.escape(title))</title>\(shape)</g>"
  }

  private func polygon(_ points: [(Double, Double)]) -> String {
    let list = points.map { "\(SVGText.number($0.0)),\(SVGText.number($0.1))" }
      .joined(separator: " ")
    return
      "<polygon points=\"\(list)\" fill=\"\(color)\" stroke=\"#1b1b1b\" stroke-width=\"1.3\" "
      + "stroke-linejoin=\"round\"/>"
  }
}
