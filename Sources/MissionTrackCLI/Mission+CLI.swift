import Foundation
import MissionTracking

extension Mission {
  /// The mission as one JSON object for `missions list --json` and `missions show --json`:
  /// `{"id","lat","lon","state","title","reward","currency","address","radius_m","deadline"}`
  /// (absent reward, currency, address and deadline are omitted).
  var cliJSONLine: String {
    var json = JSONObjectWriter()
    json.add("id", id)
    json.add("lat", coordinate.latitude)
    json.add("lon", coordinate.longitude)
    json.add("state", state.rawValue)
    json.add("title", title)
    json.addIfPresent("reward", reward)
    json.addIfPresent("currency", currency)
    json.addIfPresent("address", address)
    json.add("radius_m", geofenceRadiusMeters)
    json.addIfPresent("deadline", deadline.map { UTCTime.format($0) })
    return json.result
  }

  /// `"350 SEK"`, `"350"`, or `"-"` when there is no reward, for tables.
  var rewardText: String {
    guard let reward else { return "-" }
    return currency.map { "\(reward) \($0)" } ?? reward
  }
}
