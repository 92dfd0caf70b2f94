import MissionProximity

/// The best `capacity` matches offered so far in result order (distance, then id), and how
/// many were offered: a k-nearest search keeps k, not every mission within its circle.
struct BestMatches {
  /// Max-heap in result order: the root is the worst kept match.
  private var heap: [ProximityMatch] = []
  private let capacity: Int
  /// How many matches were offered in all.
  private(set) var offered = 0

  /// Keeps at most `capacity` (nil: every match).
  init(capacity: Int?) { self.capacity = capacity ?? Int.max }

  /// Whether `a` comes before `b` in result order.
  private static func precedes(_ a: ProximityMatch, _ b: ProximityMatch) -> Bool {
    a.distanceMeters < b.distanceMeters
      || (a.distanceMeters == b.distanceMeters && a.id < b.id)
  }

  /// Whether a match at `distance` might be kept (so its id is worth reading): false only
  /// when the heap is full and its worst match is nearer.
  func mightKeep(distance: Double) -> Bool {
    guard heap.count >= capacity, let worst = heap.first else { return true }
    return distance <= worst.distanceMeters
  }

  /// Counts `match` and keeps it if there is room or it precedes the worst kept one.
  ///
  /// - Complexity: O(log capacity); O(1) amortized when unbounded.
  mutating func offer(_ match: ProximityMatch) {
    offered += 1
    if capacity == Int.max {
      heap.append(match)
      return
    }
    if heap.count < capacity {
      heap.append(match)
      var child = heap.count - 1
      while child > 0 {
        let parent = (child - 1) / 2
        guard Self.precedes(heap[parent], heap[child]) else { break }
        heap.swapAt(parent, child)
        child = parent
      }
      return
    }
    guard let worst = heap.first, Self.precedes(match, worst) else { return }
    heap[0] = match
    var parent = 0
    while true {
      let left = 2 * parent + 1
      guard left < heap.count else { break }
      var largest = left
      if left + 1 < heap.count && Self.precedes(heap[left], heap[left + 1]) { largest = left + 1 }
      guard Self.precedes(heap[parent], heap[largest]) else { break }
      heap.swapAt(parent, largest)
      parent = largest
    }
  }

  /// Counts a match that `mightKeep` ruled out.
  mutating func count() { offered += 1 }

  /// The kept matches in result order.
  func sorted() -> [ProximityMatch] { heap.sorted(by: Self.precedes) }
}
