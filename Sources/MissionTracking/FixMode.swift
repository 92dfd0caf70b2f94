/// The receiver's fix mode, as gpsd's TPV `mode` reports it.
public enum FixMode: Int, Sendable, Hashable, Comparable, CaseIterable {
  /// The receiver reports no position solution; such a report is never a position.
  case noFix = 1
  /// A latitude/longitude solution without altitude.
  case twoD = 2
  /// A full solution with altitude.
  case threeD = 3

  /// Orders by quality: no fix < 2D < 3D.
  public static func < (lhs: FixMode, rhs: FixMode) -> Bool { lhs.rawValue < rhs.rawValue }
}
