import Foundation

/// What a line from gpsd is, judged before libgps sees it.
///
/// libgps's `gps_unpack` never reports an error: garbage is silently ignored and a broken
/// `TPV` yields whatever members were parsed before the break. So a line must first be a
/// well-formed JSON object whose `class` is a string; only then is it trusted.
enum GPSDLineKind: Equatable {
  /// A well-formed `TPV` object.
  case tpv
  /// A well-formed object of another class (`VERSION`, `DEVICES`, `WATCH`, `SKY`, ...).
  case other(String)
  /// Anything else: not UTF-8, not JSON, not an object, or no string `class`.
  case malformed

  /// Classifies one line (without its terminator).
  init(line: [UInt8]) {
    // gpsd writes `{"class":"..."` first; a cheap prefix test rejects most garbage early.
    guard line.first == UInt8(ascii: "{"), line.last == UInt8(ascii: "}"),
      let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
      let name = object["class"] as? String
    else {
      self = .malformed
      return
    }
    self = name == "TPV" ? .tpv : .other(name)
  }
}
