import Foundation
import MissionTracking
import TextRules

/// Writes fixes as NMEA 0183 sentences that `NMEADecoder` (and gpsd) read back as the same
/// fixes: per fix an RMC (time, date, position, speed, course), a GGA (quality, satellites,
/// HDOP, altitude), a GSA (2D or 3D) and, when the accuracy is known, a GST whose latitude
/// and longitude sigmas give it back as 2DRMS.
///
/// Every sentence has a valid `*hh` checksum and ends in CR LF. Times are written to the
/// millisecond, positions to 1e-7 minutes (about 0.2 mm), speed in knots to 0.001, course to
/// 0.01°. HDOP is the accuracy over gpsd's UERE (19 m), so readers without GST still get it.
///
/// ```swift
/// let text = NMEAWriter.document(for: fixes)
/// ```
public struct NMEAWriter: Sendable {
  /// The two-letter talker of every sentence (`GP`).
  public let talker: String

  /// Creates a writer.
  /// - Parameter talker: The talker ID, two upper-case letters (default `GP`).
  public init(talker: String = "GP") {
    self.talker = talker.utf8.count == 2 ? talker : "GP"
  }

  /// A whole log for `fixes`, one epoch per fix.
  public static func document(for fixes: some Sequence<Fix>, talker: String = "GP") -> String {
    let writer = NMEAWriter(talker: talker)
    var out = ""
    for fix in fixes { writer.write(fix, to: &out) }
    return out
  }

  /// Writes the sentences of one fix.
  /// - Complexity: O(1).
  public func write(_ fix: Fix, to out: inout some TextOutputStream) {
    let millis = (fix.time.timeIntervalSince1970 * 1000).rounded()
    let totalMillis = Int(max(min(millis, 9e15), -9e15))
    var day = totalMillis / 86_400_000
    var millisOfDay = totalMillis % 86_400_000
    if millisOfDay < 0 {
      millisOfDay += 86_400_000
      day -= 1
    }
    var time = ""
    Self.pad(&time, millisOfDay / 3_600_000, 2)
    Self.pad(&time, millisOfDay / 60_000 % 60, 2)
    Self.pad(&time, millisOfDay / 1000 % 60, 2)
    time += "."
    Self.pad(&time, millisOfDay % 1000, 3)
    let (year, month, dayOfMonth) = UTCTime.civilFromDays(day)
    var date = ""
    Self.pad(&date, dayOfMonth, 2)
    Self.pad(&date, month, 2)
    Self.pad(&date, ((year % 100) + 100) % 100, 2)

    let valid = fix.mode != .noFix
    let position = Self.position(fix.coordinate)
    let hdop = fix.horizontalAccuracyMeters.map { Self.decimal($0 / NMEAEpoch.uereMeters, 2) }

    var rmc = "\(talker)RMC,\(time),\(valid ? "A" : "V"),\(position),"
    rmc +=
      fix.speedMetersPerSecond.map {
        Self.decimal($0 / NMEADecoder.metersPerSecondPerKnot, 3)
      } ?? ""
    rmc += ","
    rmc += fix.courseDegrees.map { Self.decimal($0, 2) } ?? ""
    rmc += ",\(date),,,\(valid ? "A" : "N")"
    Self.sentence(rmc, to: &out)

    var gga = "\(talker)GGA,\(time),\(position),\(valid ? 1 : 0),"
    // A GGA with fewer than 3 satellites in use is no fix (gpsd's rule, and our reader's):
    // when the count is unknown, write the least the fix's mode needs (3 for 2D, 4 for 3D).
    let satellites = fix.satellitesUsed ?? (valid ? (fix.mode == .threeD ? 4 : 3) : nil)
    gga += satellites.map { String($0) } ?? ""
    gga += ",\(hdop ?? ""),"
    gga += fix.altitudeMeters.map { Self.decimal($0, 3) + ",M" } ?? ","
    gga += ",,,,"
    Self.sentence(gga, to: &out)

    let mode = fix.mode == .threeD ? 3 : (fix.mode == .twoD ? 2 : 1)
    Self.sentence("\(talker)GSA,A,\(mode),,,,,,,,,,,,,,\(hdop ?? ""),", to: &out)

    if let accuracy = fix.horizontalAccuracyMeters, accuracy.isFinite, accuracy >= 0 {
      // 2DRMS = 2·√(σlat² + σlon²) with σlat = σlon = accuracy / (2√2).
      let sigma = Self.decimal(accuracy / (2 * 2.0.squareRoot()), 4)
      Self.sentence("\(talker)GST,\(time),,,,,\(sigma),\(sigma),", to: &out)
    }
  }

  /// `$BODY*hh\r\n`, the checksum being the XOR of BODY's bytes.
  static func sentence(_ body: String, to out: inout some TextOutputStream) {
    out.write("$\(body)*\(checksum(body))\r\n")
  }

  /// The two upper-case hex digits of the XOR of `body`'s bytes.
  static func checksum(_ body: String) -> String {
    let value = body.utf8.reduce(UInt8(0)) { $0 ^ $1 }
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(value >> 4)], digits[Int(value & 0x0F)]])
  }

  /// `ddmm.mmmmmmm,N,dddmm.mmmmmmm,E`.
  private static func position(_ coordinate: Coordinate) -> String {
    var text = angle(abs(coordinate.latitude), degreeDigits: 2)
    text += coordinate.latitude < 0 ? ",S," : ",N,"
    text += angle(abs(coordinate.longitude), degreeDigits: 3)
    text += coordinate.longitude < 0 ? ",W" : ",E"
    return text
  }

  /// Degrees and decimal minutes with 7 places, carrying a rounded 60' into the degrees.
  private static func angle(_ degrees: Double, degreeDigits: Int) -> String {
    let scale = 10_000_000.0
    let totalUnits = (degrees * 60 * scale).rounded()  // 1e-7 minutes
    let unitsPerDegree = Int64(60 * scale)
    let units = Int64(totalUnits)
    let whole = units / unitsPerDegree
    let minuteUnits = units % unitsPerDegree
    var text = ""
    pad(&text, Int(whole), degreeDigits)
    pad(&text, Int(minuteUnits / Int64(scale)), 2)
    text += "."
    pad(&text, Int(minuteUnits % Int64(scale)), 7)
    return text
  }

  /// `value` with up to `places` decimals, never an exponent.
  private static func decimal(_ value: Double, _ places: Int) -> String {
    var text = ""
    DecimalText.append(value, fractionDigits: places, to: &text)
    return text
  }

  private static func pad(_ out: inout String, _ value: Int, _ width: Int) {
    let digits = String(value)
    if digits.count < width { out += String(repeating: "0", count: width - digits.count) }
    out += digits
  }
}
