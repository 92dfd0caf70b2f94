import Foundation
import MissionTracking
import Testing
import TextRules

@testable import TraceFormats

/// Every trace reader reads a decimal number by the one grammar in TextRules: the value
/// `Double(decimalText:)` gives, correctly rounded, whatever the format.
@Suite struct DecimalAgreementTests {
  /// 17 significant digits: more than a 64-bit mantissa divided once by a power of ten
  /// rounds correctly (NMEA's own parser read 308.48859452669853 here).
  static let long = "308.48859452669857"

  /// The track point, NMEA RMC and gpsd TPV that carry `value` as a course or elevation.
  private func read(_ value: String) throws -> (nmea: Double?, gpsd: Double?, gpx: Double?) {
    let rmc = sentence("$GPRMC,123519.00,A,4807.038,N,01131.000,E,022.4,\(value),230394,,,A")
    let nmea = try decodeNMEA(rmc + "\r\n").fixes.first?.courseDegrees
    var decoder = GPSDJSONDecoder()
    let tpv =
      #"{"class":"TPV","mode":3,"time":"2020-03-18T13:28:19.600Z","lat":1.5,"lon":2.5,"track":"#
      + value + "}\n"
    let gpsd = try decodeAll(tpv, with: &decoder).first?.courseDegrees
    let point =
      #"<trkpt lat="1.5" lon="2.5"><ele>"# + value
      + "</ele><time>2020-03-18T13:28:19Z</time></trkpt>"
    let gpx = try GPXTestSupport.decode(GPXTestSupport.track(point)).fixes.first?.altitudeMeters
    return (nmea, gpsd, gpx)
  }

  @Test(arguments: [long, "3.0848859452669857e2", "308.5", "0.000125", "+1.25e-4"])
  func nmeaGpsdAndGPXReadADecimalAsTheSharedGrammarDoes(text: String) throws {
    let expected = try #require(Double(decimalText: text))
    #expect(expected == Double(text))  // the standard library's correctly rounded reading
    let (nmea, gpsd, gpx) = try read(text)
    #expect(nmea == expected)
    #expect(gpsd == expected)
    #expect(gpx == expected)
  }
}
