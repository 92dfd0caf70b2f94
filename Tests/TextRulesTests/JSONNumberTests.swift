import Foundation
import MissionProximity
import Testing

@testable import TextRules

/// `JSONObjectWriter` writes short decimals itself: the bytes must stay `description`'s.
@Suite struct JSONNumberTests {
  private func written(_ value: Double) -> String {
    var bytes: [UInt8] = []
    JSONObjectWriter.appendNumber(value, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  @Test func shortDecimalsAreWrittenAsDescriptionWritesThem() {
    var rng = SplitMix64(seed: 20_261_201)
    var direct = 0
    for _ in 0..<200_000 {
      // Decimals as an import reads them: up to 9 places, magnitudes 1e-4 ... 1e8.
      let places = Int(rng.next() % 10)
      let integer = Int64(rng.next() % 100_000_000) / Int64(pow(10, Double(rng.next() % 9)))
      let fraction = rng.next() % UInt64(pow(10, Double(places)))
      let sign = rng.next() % 2 == 0 ? "" : "-"
      let text = places == 0 ? "\(sign)\(integer)" : "\(sign)\(integer).\(pad(fraction, places))"
      guard let value = Double(text) else { continue }
      #expect(written(value) == value.description, "\(text)")
      var scratch: [UInt8] = []
      if JSONObjectWriter.appendShortDecimal(value, to: &scratch) { direct += 1 }
    }
    // Most of these take the direct path (the rest are out of its range or have 9 places).
    #expect(direct > 120_000)
  }

  @Test func arbitraryDoublesAreWrittenAsDescriptionWritesThem() {
    var rng = SplitMix64(seed: 7)
    for _ in 0..<200_000 {
      // Uniform in the fast path's range and around it, and computed values (distances).
      let exponent = Double(Int(rng.next() % 14) - 5)
      let value = Double(rng.next() % (1 << 53)) / Double(1 << 53) * pow(10, exponent)
      #expect(written(value) == value.description)
      #expect(written(-value) == (-value).description)
      let bits = Double(bitPattern: rng.next())
      if bits.isFinite { #expect(written(bits) == bits.description) }
    }
  }

  @Test(arguments: [
    0.0, -0.0, 0.001, 0.000999, 0.0001, 1e-5, 0.1, 0.2, 0.3, 1.0 / 3, 2.0 / 3, 50, 1000, 1e7,
    1e7 - 0.5, 9_999_999.999_999_99, 10_000_000.000_000_01, 12_345_678, 1e15, 1e16, 59.2809806,
    -180, 180, 90, -90, 0.5, 183.243_320_492_591_44, Double.ulpOfOne, .leastNonzeroMagnitude,
    .greatestFiniteMagnitude, 0.123_456_78, 0.123_456_789, 1.000_000_01, 1.000_000_001,
  ])
  func edgeValuesAreWrittenAsDescriptionWritesThem(_ value: Double) {
    #expect(written(value) == value.description)
    #expect(written(value.nextUp) == value.nextUp.description)
    #expect(written(value.nextDown) == value.nextDown.description)
  }

  private func pad(_ number: UInt64, _ width: Int) -> String {
    let digits = String(number)
    return String(repeating: "0", count: max(0, width - digits.count)) + digits
  }
}
