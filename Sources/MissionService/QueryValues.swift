import MissionTracking

/// Reading a request's query arguments, with the service's statuses: 400 for text that is
/// not a value of the kind, 422 for a value out of range.
extension HTTPRequest {
  /// The argument `name` as a finite number in `range`, or nil when absent.
  func double(_ name: String, in range: ClosedRange<Double>) throws(ServiceError) -> Double? {
    guard let text = query[name] else { return nil }
    guard let value = Double(text), value.isFinite else {
      throw .badRequest("\(name) must be a number, got '\(text.prefix(64))'")
    }
    guard range.contains(value) else {
      throw .invalid("\(name) must be in \(range.lowerBound)...\(range.upperBound), got \(text)")
    }
    return value
  }

  /// The argument `name` as an integer in `range`, or nil when absent.
  func int(_ name: String, in range: ClosedRange<Int>) throws(ServiceError) -> Int? {
    guard let text = query[name] else { return nil }
    guard let value = Int(text) else {
      throw .badRequest("\(name) must be an integer, got '\(text.prefix(64))'")
    }
    guard range.contains(value) else {
      throw .invalid("\(name) must be in \(range.lowerBound)...\(range.upperBound), got \(text)")
    }
    return value
  }

  /// The `state` argument: nil when absent, `.some(nil)` for `any`, else the state.
  func stateFilter() throws(ServiceError) -> MissionState?? {
    guard let text = query["state"] else { return nil }
    if text == "any" { return .some(nil) }
    guard let state = MissionState(rawValue: text) else {
      let names = MissionState.allCases.map(\.rawValue).joined(separator: ", ")
      throw .invalid("state must be one of \(names) or any, got '\(text.prefix(64))'")
    }
    return .some(state)
  }
}
