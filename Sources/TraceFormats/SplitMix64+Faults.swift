import Foundation
import MissionProximity

extension SplitMix64 {
  /// A uniform double in [0, 1), from the top 53 bits.
  mutating func unitInterval() -> Double {
    Double(next() >> 11) * 0x1p-53
  }

  /// Two independent standard normal values (Box–Muller transform, G. E. P. Box and
  /// M. E. Muller, 1958), from two uniform draws.
  mutating func gaussianPair() -> (Double, Double) {
    let u1 = 1 - unitInterval()  // (0, 1]: the logarithm stays finite
    let u2 = unitInterval()
    let radius = (-2 * log(u1)).squareRoot()
    return (radius * cos(2 * .pi * u2), radius * sin(2 * .pi * u2))
  }
}
