import Foundation
import MissionTracking

extension Mission {
  /// `"350 SEK"`, `"350"`, or `"-"` when there is no reward, for tables.
  var rewardText: String {
    guard let reward else { return "-" }
    return currency.map { "\(reward) \($0)" } ?? reward
  }
}
