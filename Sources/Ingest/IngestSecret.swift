/// The comparison of a presented secret with a device's.
package enum IngestSecret {
  /// Whether `presented` is `expected`, in time that depends on the lengths only (no early
  /// exit at the first differing byte, so timing does not reveal a prefix).
  ///
  /// - Parameters:
  ///   - presented: The secret the request carries; nil never matches.
  ///   - expected: The device's registered secret.
  /// - Complexity: O(max(n, m)) in the two lengths, whatever the contents.
  package static func matches(_ presented: String?, _ expected: String) -> Bool {
    guard let presented else { return false }
    let a = Array(presented.utf8)
    let b = Array(expected.utf8)
    var difference = UInt8(truncatingIfNeeded: a.count ^ b.count)
    for index in 0..<max(a.count, b.count) {
      difference |= (index < a.count ? a[index] : 0) ^ (index < b.count ? b[index] : 0)
    }
    return difference == 0 && a.count == b.count
  }
}
