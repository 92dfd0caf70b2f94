import Foundation

/// The open elements of an `XMLTokenizer`: their qualified names back to back, where each
/// name starts, and the handler's state for each, innermost last.
///
/// The storage is managed by hand because this is the tokenizer's innermost loop: with three
/// arrays, a push and a pop (append, remove the last n bytes, and a uniqueness check for each
/// of them) took a sixth of the GPX reader's time. Depth is bounded by
/// `XMLTokenizer.maxDepth` and each name by `XMLTokenizer.maxNameBytes`, so the memory stays
/// bounded too; the name buffer grows by doubling as deeper or longer names come.
///
/// A reference type with value semantics by convention: the owner calls
/// `makeUnique(_:)` before it mutates, once per chunk, so a copied tokenizer never shares
/// its open elements with the original.
final class XMLElementStack {
  /// How many elements are open.
  private(set) var depth = 0
  private let capacity: Int
  private var names: UnsafeMutablePointer<UInt8>
  private var nameCapacity: Int
  private var nameCount = 0
  private let starts: UnsafeMutablePointer<Int>
  private let states: UnsafeMutablePointer<UInt8>

  /// Creates an empty stack for at most `capacity` open elements.
  init(capacity: Int) {
    self.capacity = capacity
    nameCapacity = 256
    names = .allocate(capacity: nameCapacity)
    starts = .allocate(capacity: capacity)
    states = .allocate(capacity: capacity)
  }

  deinit {
    names.deallocate()
    starts.deallocate()
    states.deallocate()
  }

  /// Replaces `stack` with a copy of itself unless no one else holds it.
  static func makeUnique(_ stack: inout XMLElementStack) {
    if isKnownUniquelyReferenced(&stack) { return }
    let copy = XMLElementStack(capacity: stack.capacity)
    copy.reserveNames(stack.nameCount)
    copy.names.update(from: stack.names, count: stack.nameCount)
    copy.starts.update(from: stack.starts, count: stack.depth)
    copy.states.update(from: stack.states, count: stack.depth)
    copy.nameCount = stack.nameCount
    copy.depth = stack.depth
    stack = copy
  }

  /// Whether no element is open.
  var isEmpty: Bool { depth == 0 }

  /// The state of the innermost open element, nil when none is.
  var lastState: UInt8? { depth > 0 ? states[depth - 1] : nil }

  /// Opens an element named `name` with the handler's `state`. The caller keeps `depth`
  /// below the capacity.
  @inline(__always)
  func push(_ name: UnsafeBufferPointer<UInt8>, state: UInt8) {
    precondition(depth < capacity, "XMLElementStack: deeper than its capacity")
    if nameCount + name.count > nameCapacity { reserveNames(nameCount + name.count) }
    if let base = name.baseAddress { (names + nameCount).update(from: base, count: name.count) }
    starts[depth] = nameCount
    states[depth] = state
    nameCount += name.count
    depth += 1
  }

  /// Whether the innermost open element is named `name` (false when none is open).
  @inline(__always)
  func innermostIs(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
    guard depth > 0 else { return false }
    let start = starts[depth - 1]
    let count = name.count
    guard nameCount - start == count else { return false }
    guard let base = name.baseAddress else { return true }
    if count > 16 { return memcmp(names + start, base, count) == 0 }
    // Most names are short: a byte loop costs less than the call.
    let stored = names + start
    var k = 0
    while k < count {
      if stored[k] != base[k] { return false }
      k += 1
    }
    return true
  }

  /// Closes the innermost open element; there must be one.
  @inline(__always)
  func pop() {
    precondition(depth > 0, "XMLElementStack: pop of an empty stack")
    depth -= 1
    nameCount = starts[depth]
  }

  /// The name of open element `index` (0: the root), for messages.
  func name(at index: Int) -> String {
    let start = starts[index]
    let end = index + 1 < depth ? starts[index + 1] : nameCount
    return String(
      decoding: UnsafeBufferPointer(start: names + start, count: end - start), as: UTF8.self)
  }

  private func reserveNames(_ needed: Int) {
    guard needed > nameCapacity else { return }
    var grown = nameCapacity
    while grown < needed { grown *= 2 }
    let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
    bigger.update(from: names, count: nameCount)
    names.deallocate()
    names = bigger
    nameCapacity = grown
  }
}
