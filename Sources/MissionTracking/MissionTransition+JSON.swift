import TextRules

extension MissionTransition {
  /// The transition as one JSON object, for `missions show --json` and the HTTP service:
  /// `{"action","from","to","time"}`.
  package var jsonObject: String {
    var json = JSONObjectWriter()
    json.add("action", action.rawValue)
    json.add("from", from.rawValue)
    json.add("to", to.rawValue)
    json.add("time", UTCTime.format(time))
    return json.result
  }
}
