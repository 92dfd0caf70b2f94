/// A map scale bar of a round length: 1, 2 or 5 times a power of ten metres.
package struct ScaleBar: Sendable, Equatable {
  /// The length the bar stands for, in metres.
  package let meters: Double
  /// The bar's length on the page, in pixels.
  package let pixels: Double

  /// The longest round length (1-2-5 series, 1 m to 10,000 km) whose bar is at most
  /// `maximumPixels` long at `pixelsPerMeter`; the shortest (1 m) when even that is longer.
  package init(pixelsPerMeter: Double, maximumPixels: Double) {
    var best = 1.0
    var decade = 1.0
    search: while decade <= 1e7 {
      for step in [1.0, 2.0, 5.0] {
        let length = step * decade
        if length * pixelsPerMeter > maximumPixels { break search }
        best = length
      }
      decade *= 10
    }
    meters = best
    pixels = best * pixelsPerMeter
  }

  /// The length for people: `"50 m"`, `"200 m"`, `"1 km"`, `"20 km"`.
  package var label: String {
    meters >= 1000 ? "\(Int(meters / 1000)) km" : "\(Int(meters)) m"
  }
}
