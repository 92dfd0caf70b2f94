/// An error of a store that can tell a database that could not take a request now (away,
/// restarting, the request cancelled while the service stops) from one that refused it:
/// `serve` answers the first with 503, so that a client tries again, as it does for SQLite's
/// busy and interrupted errors.
package protocol StoreAvailability: Error {
  /// Whether the database could not take the request now (a retry later may succeed).
  var isUnavailable: Bool { get }
}
