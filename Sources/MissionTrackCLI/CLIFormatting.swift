import CommandLineSupport
import Foundation
import MissionProximity
import MissionTracking
import TextRules

/// Parses `"LAT,LON"` into a validated coordinate, naming `flag` in the usage error.
func parseLatLon(_ text: String, flag: String) throws(CLIError) -> Coordinate {
  let parts = text.split(separator: ",", omittingEmptySubsequences: false)
  guard parts.count == 2,
    let lat = Double(decimalText: parts[0].trimmingCharacters(in: .whitespaces)),
    let lon = Double(decimalText: parts[1].trimmingCharacters(in: .whitespaces))
  else { throw .usage("\(flag) expects LAT,LON in degrees, got '\(text)'") }
  do {
    return try Coordinate(latitude: lat, longitude: lon)
  } catch {
    throw .usage("\(flag): \(error)")
  }
}

/// `"850 m"` below 10 km, `"12.3 km"` above, for people.
func formatMeters(_ meters: Double) -> String {
  meters < 10_000
    ? String(format: "%.0f m", meters) : String(format: "%.1f km", meters / 1000)
}
