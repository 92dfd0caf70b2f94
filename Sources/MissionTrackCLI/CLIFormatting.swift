import Foundation
import MissionProximity

/// Parses `"LAT,LON"` into a validated coordinate, naming `flag` in the usage error.
func parseLatLon(_ text: String, flag: String) throws(CLIError) -> Coordinate {
  let parts = text.split(separator: ",", omittingEmptySubsequences: false)
  guard parts.count == 2,
    let lat = parseDecimal(parts[0].trimmingCharacters(in: .whitespaces)),
    let lon = parseDecimal(parts[1].trimmingCharacters(in: .whitespaces))
  else { throw .usage("\(flag) expects LAT,LON in degrees, got '\(text)'") }
  do {
    return try Coordinate(latitude: lat, longitude: lon)
  } catch {
    throw .usage("\(flag): \(error)")
  }
}

/// Parses a decimal number as people write it on a command line: an optional sign (`-` or
/// `+`), digits with an optional fraction (`17`, `17.5`, `.5`, `17.`) and an optional
/// exponent (`1e3`), giving a finite value. Everything `Double(_:)` accepts beyond that is
/// refused: hexadecimal (`0x10` would be 16), `inf`, `infinity`, `nan`, and values that
/// overflow (`1e999`); so are spaces and an empty string.
/// - Returns: The value, or nil when `text` is not such a number.
func parseDecimal(_ text: some StringProtocol) -> Double? {
  var bytes = Substring(text).utf8[...]
  if let sign = bytes.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
    bytes = bytes.dropFirst()
  }
  let isDigit = { (b: UInt8) in (48...57).contains(b) }
  let integer = bytes.prefix(while: isDigit)
  bytes = bytes.dropFirst(integer.count)
  var fraction = 0
  if bytes.first == UInt8(ascii: ".") {
    bytes = bytes.dropFirst()
    fraction = bytes.prefix(while: isDigit).count
    bytes = bytes.dropFirst(fraction)
  }
  guard integer.count + fraction > 0 else { return nil }
  if let e = bytes.first, e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
    bytes = bytes.dropFirst()
    if let sign = bytes.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
      bytes = bytes.dropFirst()
    }
    let exponent = bytes.prefix(while: isDigit).count
    guard exponent > 0 else { return nil }
    bytes = bytes.dropFirst(exponent)
  }
  guard bytes.isEmpty, let value = Double(String(text)), value.isFinite else { return nil }
  return value
}

/// `"850 m"` below 10 km, `"12.3 km"` above, for people.
func formatMeters(_ meters: Double) -> String {
  meters < 10_000
    ? String(format: "%.0f m", meters) : String(format: "%.1f km", meters / 1000)
}
