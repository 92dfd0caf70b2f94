import MissionTracking
import TextRules

/// Reading a request's query arguments, with the service's statuses: 400 for text that is
/// not a value of the kind, 422 for a value out of range.
extension HTTPRequest {
  /// The argument `name` as a finite number in `range`, or nil when absent.
  func double(_ name: String, in range: ClosedRange<Double>) throws(ServiceError) -> Double? {
    guard let text = query[name] else { return nil }
    guard let value = Double(decimalText: text) else {
      throw .badRequest("\(name) must be a number, got '\(Self.shown(text))'")
    }
    guard range.contains(value) else {
      throw .invalid(
        "\(name) must be in \(range.lowerBound)...\(range.upperBound), got \(Self.shown(text))")
    }
    return value
  }

  /// The argument `name` as an integer in `range`, or nil when absent.
  func int(_ name: String, in range: ClosedRange<Int>) throws(ServiceError) -> Int? {
    guard let text = query[name] else { return nil }
    guard let value = Int(text) else {
      throw .badRequest("\(name) must be an integer, got '\(Self.shown(text))'")
    }
    guard range.contains(value) else {
      throw .invalid(
        "\(name) must be in \(range.lowerBound)...\(range.upperBound), got \(Self.shown(text))")
    }
    return value
  }

  /// A client's value in an error message: on one line, at most 64 characters.
  static func shown(_ text: String) -> String { MissionService.oneLine(text, limit: 64) }

  /// The `state` argument: nil when absent, `.some(nil)` for `any`, else the state.
  func stateFilter() throws(ServiceError) -> MissionState?? {
    guard let text = query["state"] else { return nil }
    if text == "any" { return .some(nil) }
    guard let state = MissionState(rawValue: text) else {
      let names = MissionState.allCases.map(\.rawValue).joined(separator: ", ")
      throw .invalid("state must be one of \(names) or any, got '\(Self.shown(text))'")
    }
    return .some(state)
  }
}
