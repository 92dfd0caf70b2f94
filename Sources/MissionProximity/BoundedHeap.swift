/// The best `capacity` candidates seen so far (or all of them when `capacity` is nil), in a
/// max-heap whose root is the worst kept candidate in result order (distance, then id).
struct BoundedHeap {
  private var items: [GridCandidate] = []
  private let capacity: Int
  /// The slot → id array, for ties.
  private let ids: [String]

  /// A heap keeping at most `capacity` candidates (nil: keep all) out of `count`.
  init(capacity: Int?, count: Int, ids: [String]) {
    self.capacity = capacity ?? Int.max
    self.ids = ids
    items.reserveCapacity(min(capacity ?? 32, count))
  }

  /// Whether `a` comes before `b` in result order: distance, then id.
  @inline(__always)
  private func precedes(_ a: GridCandidate, _ b: GridCandidate) -> Bool {
    a.distance < b.distance
      || (a.distance == b.distance && ids[Int(a.slot)] < ids[Int(b.slot)])
  }

  /// Whether `capacity` candidates are kept, so a new one must beat the worst.
  var isFull: Bool { items.count >= capacity }

  /// The distance of the worst kept candidate (only meaningful when not empty).
  var worstDistance: Double { items[0].distance }

  /// Keeps `candidate` if there is room or it precedes the worst kept one.
  ///
  /// - Complexity: O(log capacity); O(1) when unbounded.
  mutating func offer(_ candidate: GridCandidate) {
    if capacity == Int.max {
      items.append(candidate)
      return
    }
    if items.count < capacity {
      items.append(candidate)
      var child = items.count - 1
      while child > 0 {
        let parent = (child - 1) / 2
        guard precedes(items[parent], items[child]) else { break }
        items.swapAt(parent, child)
        child = parent
      }
      return
    }
    guard precedes(candidate, items[0]) else { return }
    items[0] = candidate
    var parent = 0
    while true {
      let left = 2 * parent + 1
      guard left < items.count else { break }
      var largest = left
      let right = left + 1
      if right < items.count && precedes(items[left], items[right]) { largest = right }
      guard precedes(items[parent], items[largest]) else { break }
      items.swapAt(parent, largest)
      parent = largest
    }
  }

  /// The kept candidates in result order.
  func sorted() -> [GridCandidate] {
    var sorted = items
    sortInResultOrder(&sorted, ids: ids)
    return sorted
  }
}
