/// Up to three inclusive column ranges, merged so that no column appears twice; stored
/// inline so building one never allocates.
struct ColumnSpans {
  private(set) var count = 0
  private var spans: (Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0)

  /// The `index`-th span.
  subscript(index: Int) -> (low: Int, high: Int) {
    switch index {
    case 0: (spans.0, spans.1)
    case 1: (spans.2, spans.3)
    default: (spans.4, spans.5)
    }
  }

  private mutating func set(_ index: Int, _ low: Int, _ high: Int) {
    switch index {
    case 0:
      spans.0 = low
      spans.1 = high
    case 1:
      spans.2 = low
      spans.3 = high
    default:
      spans.4 = low
      spans.5 = high
    }
  }

  /// Adds columns `low...high`, merging with any span it overlaps or touches.
  mutating func add(_ low: Int, _ high: Int) {
    var low = low
    var high = high
    var index = 0
    while index < count {
      let span = self[index]
      if span.low <= high + 1 && low <= span.high + 1 {
        low = min(low, span.low)
        high = max(high, span.high)
        // Remove span `index` by moving the last one into its place, then retry.
        let last = self[count - 1]
        set(index, last.low, last.high)
        count -= 1
        index = 0
        continue
      }
      index += 1
    }
    set(count, low, high)
    count += 1
  }
}
