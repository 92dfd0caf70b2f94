/// Places short text labels beside points so that they do not overlap each other, the map
/// furniture, or (where it can be helped) the track.
struct LabelPlacer: Sendable {
  /// An axis-aligned box on the page, in pixels.
  struct Box: Sendable, Equatable {
    var minX: Double
    var minY: Double
    var maxX: Double
    var maxY: Double

    /// Whether the two boxes share any area.
    func intersects(_ other: Box) -> Bool {
      minX < other.maxX && other.minX < maxX && minY < other.maxY && other.minY < maxY
    }

    /// Whether `point` lies in the box.
    func contains(_ point: PlanePoint) -> Bool {
      point.x >= minX && point.x <= maxX && point.y >= minY && point.y <= maxY
    }
  }

  /// A label where it was put: the text's anchor point, alignment, and its box.
  struct Placement: Sendable, Equatable {
    var text: String
    var x: Double
    var baselineY: Double
    /// SVG `text-anchor`: `start` or `end`.
    var anchor: String
    var box: Box
  }

  /// Where labels must stay: the map rectangle.
  let bounds: Box
  private var taken: [Box] = []
  private let cellSize = 16.0
  private var trackCells: [Int64: [PlanePoint]] = [:]

  /// A placer inside `bounds` that avoids the boxes in `obstacles` and tries to avoid the
  /// track polylines `track` (page pixels).
  init(bounds: Box, obstacles: [Box], track: [[PlanePoint]]) {
    self.bounds = bounds
    taken = obstacles
    for segment in track {
      for (index, point) in segment.enumerated() {
        add(point)
        // Sample long edges every few pixels so a label cannot sit on a straight stretch.
        guard index + 1 < segment.count else { continue }
        let next = segment[index + 1]
        let steps = Int(point.distance(to: next) / 4)
        if steps > 1 {
          for step in 1..<steps {
            let t = Double(step) / Double(steps)
            add(
              PlanePoint(x: point.x + (next.x - point.x) * t, y: point.y + (next.y - point.y) * t))
          }
        }
      }
    }
  }

  /// Marks `box` as occupied (a marker, a legend) so that later labels avoid it.
  mutating func reserve(_ box: Box) { taken.append(box) }

  /// Puts `text` next to `point` in the first of eight positions around it that overlaps no
  /// earlier label or obstacle, preferring positions that cover the fewest track pixels; nil
  /// when all eight collide or leave the bounds.
  mutating func place(_ text: String, near point: PlanePoint, fontSize: Double, gap: Double)
    -> Placement?
  {
    let width = SVGText.estimatedWidth(text, fontSize: fontSize)
    let ascent = fontSize * 0.8
    let descent = fontSize * 0.25
    // (dx, dy) of the text anchor from the point; anchor end means the text ends there.
    let diagonal = gap * 0.75
    let candidates: [(dx: Double, dy: Double, anchor: String)] = [
      (gap, ascent / 2 - descent / 2, "start"),
      (-gap, ascent / 2 - descent / 2, "end"),
      (diagonal, -diagonal, "start"),
      (-diagonal, -diagonal, "end"),
      (diagonal, diagonal + ascent, "start"),
      (-diagonal, diagonal + ascent, "end"),
      (-width / 2, -gap - descent, "start"),
      (-width / 2, gap + ascent, "start"),
    ]
    var best: (placement: Placement, cost: Int)?
    for candidate in candidates {
      let x = point.x + candidate.dx
      let baseline = point.y + candidate.dy
      let left = candidate.anchor == "end" ? x - width : x
      let box = Box(
        minX: left - 2, minY: baseline - ascent - 2, maxX: left + width + 2,
        maxY: baseline + descent + 2)
      guard box.minX >= bounds.minX, box.maxX <= bounds.maxX, box.minY >= bounds.minY,
        box.maxY <= bounds.maxY, !taken.contains(where: { $0.intersects(box) })
      else { continue }
      let cost = trackPoints(in: box)
      if best == nil || cost < best!.cost {
        best = (
          Placement(text: text, x: x, baselineY: baseline, anchor: candidate.anchor, box: box), cost
        )
        if cost == 0 { break }
      }
    }
    guard let chosen = best?.placement else { return nil }
    taken.append(chosen.box)
    return chosen
  }

  private mutating func add(_ point: PlanePoint) {
    trackCells[key(point), default: []].append(point)
  }

  private func key(_ point: PlanePoint) -> Int64 {
    let column = Int64((point.x / cellSize).rounded(.down))
    let row = Int64((point.y / cellSize).rounded(.down))
    return column &* 1_000_003 &+ row
  }

  private func trackPoints(in box: Box) -> Int {
    var count = 0
    let firstColumn = Int64((box.minX / cellSize).rounded(.down))
    let lastColumn = Int64((box.maxX / cellSize).rounded(.down))
    let firstRow = Int64((box.minY / cellSize).rounded(.down))
    let lastRow = Int64((box.maxY / cellSize).rounded(.down))
    for column in firstColumn...lastColumn {
      for row in firstRow...lastRow {
        for point in trackCells[column &* 1_000_003 &+ row] ?? [] where box.contains(point) {
          count += 1
        }
      }
    }
    return count
  }
}
