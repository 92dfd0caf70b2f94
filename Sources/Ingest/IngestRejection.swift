/// A point of a batch that was skipped, and why (the rest of the batch is kept).
package struct IngestRejection: Sendable, Hashable, CustomStringConvertible {
  /// The point's 0-based index among the request's points (Overland's `locations`, the
  /// non-blank lines of a fix-lines body).
  package var index: Int
  /// The 1-based line of the body where the point starts.
  package var line: Int
  /// What is wrong, in one line.
  package var reason: String

  /// A rejection.
  package init(index: Int, line: Int, reason: String) {
    self.index = index
    self.line = line
    self.reason = reason
  }

  /// `point 3 (line 4): latitude 91 is outside [-90, 90]`.
  package var description: String { "point \(index) (line \(line)): \(reason)" }
}
