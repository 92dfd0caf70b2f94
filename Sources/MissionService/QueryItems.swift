/// A request's query arguments, decoded, in the order sent; a name may come more than once.
///
/// Kept as a list, not a dictionary: a phone's report has about eight items and is read
/// once, so hashing each name cost more than the few lookups it saves (and the ingest
/// decoders take the list as it is).
struct QueryItems: Sendable {
  /// The items in order.
  private(set) var items: [(name: String, value: String)] = []

  /// The first value of `name`, or nil when the query has none.
  subscript(name: String) -> String? { items.first { $0.name == name }?.value }

  /// Adds an item after the others.
  mutating func append(_ name: String, _ value: String) {
    items.append((name: name, value: value))
  }
}
