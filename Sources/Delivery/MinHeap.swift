/// A binary min-heap: the smallest element first.
struct MinHeap<Element: Comparable & Sendable>: Sendable {
  private var elements: [Element] = []

  /// How many elements it holds.
  var count: Int { elements.count }

  /// The smallest element, or nil when empty. - Complexity: O(1).
  var min: Element? { elements.first }

  /// Adds `element`. - Complexity: O(log n).
  mutating func insert(_ element: Element) {
    elements.append(element)
    var child = elements.count - 1
    while child > 0 {
      let parent = (child - 1) / 2
      guard elements[child] < elements[parent] else { break }
      elements.swapAt(child, parent)
      child = parent
    }
  }

  /// Removes and returns the smallest element. - Complexity: O(log n).
  mutating func popMin() -> Element? {
    guard !elements.isEmpty else { return nil }
    elements.swapAt(0, elements.count - 1)
    let smallest = elements.removeLast()
    var parent = 0
    while true {
      let left = 2 * parent + 1
      let right = left + 1
      var smallestChild = parent
      if left < elements.count, elements[left] < elements[smallestChild] { smallestChild = left }
      if right < elements.count, elements[right] < elements[smallestChild] {
        smallestChild = right
      }
      guard smallestChild != parent else { break }
      elements.swapAt(parent, smallestChild)
      parent = smallestChild
    }
    return smallest
  }

  /// Removes every element.
  mutating func removeAll() { elements.removeAll() }
}
