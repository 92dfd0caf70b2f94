import Foundation
import MissionTracking
import Testing

@testable import Ingest

@Suite struct OsmAndDecoderTests {
  // Source: traccar/traccar src/test/java/org/traccar/protocol/OsmAndProtocolDecoderTest.java,
  // testDecodeQuery: each query with the fix time it names (nil: the request's own time).
  @Test(arguments: [
    (
      "id=902064&lat=42.06288&lon=-88.23412&timestamp=2016-01-27T18%3A55%3A47Z&hdop=6.0&altitude=224.0&speed=0.0",
      "902064", 42.06288, -88.23412, 1_453_920_947.0
    ),
    (
      "id=902064&lat=42.06288&lon=-88.23412&timestamp=1442068686579&hdop=6.0&altitude=224.0&speed=0.0",
      "902064", 42.06288, -88.23412, 1_442_068_686.579
    ),
    (
      "lat=49.60688&lon=6.15788&timestamp=2014-06-04+09%3A10%3A11&altitude=384.7&speed=0.0&id=353861053849681",
      "353861053849681", 49.60688, 6.15788, 1_401_873_011.0
    ),
    (
      "id=123456&timestamp=1377177267&lat=60.0&lon=30.0&speed=0.0&bearing=0.0&altitude=0&hdop=0.0",
      "123456", 60.0, 30.0, 1_377_177_267.0
    ),
    ("id=123456&timestamp=1377177267&lat=60.0&lon=30.0", "123456", 60.0, 30.0, 1_377_177_267.0),
    (
      "lat=60.0&lon=30.0&speed=0.0&heading=0.0&vacc=0&hacc=0&altitude=0&deviceid=123456",
      "123456", 60.0, 30.0, 1_700_000_000.0
    ),
    (
      "id=861001000719969&lat=41.666667&lon=-0.883333&altitude=350.059479&speed=0.000000&batt=87",
      "861001000719969", 41.666667, -0.883333, 1_700_000_000.0
    ),
    ("id=123456&timestamp=1377177267&location=60.0,30.0", "123456", 60.0, 30.0, 1_377_177_267.0),
    (
      "id=123456789012345&timestamp=1504763810&lat=40.7232948571&lon=-74.0061408571&bearing=7.19889788244&speed=40&ignition=true&rpm=933&fuel=24",
      "123456789012345", 40.7232948571, -74.0061408571, 1_504_763_810.0
    ),
  ])
  func traccarQueriesDecode(
    query: String, device: String, lat: Double, lon: Double, time: Double
  ) throws {
    let batch = try OsmAndDecoder.decode(request(query: query))
    #expect(batch.identity == .device(device))
    let fix = try #require(onlyFix(batch))
    #expect(fix.coordinate.latitude == lat && fix.coordinate.longitude == lon)
    #expect(close(fix.time.timeIntervalSince1970, time))
    #expect(fix.source == "osmand")
  }

  // Source: OsmAndProtocolDecoderTest.java, testDecodeQuery: speed=40 (knots), bearing.
  @Test func speedIsInKnotsAndBearingIsTheCourse() throws {
    let fix = try #require(
      onlyFix(
        try OsmAndDecoder.decode(
          request(
            query:
              "id=1&timestamp=1504763810&lat=40.72&lon=-74.0&bearing=7.19889788244&speed=40&accuracy=12"
          ))))
    #expect(close(fix.speedMetersPerSecond, 40 * 1852 / 3600.0))
    #expect(fix.courseDegrees == 7.19889788244 && fix.horizontalAccuracyMeters == 12)
  }

  // Source: OsmAndProtocolDecoderTest.java, testDecodeQuery (first: cell and Wi-Fi only).
  @Test func aReportWithoutCoordinatesIsAcknowledgedAndIgnored() throws {
    let batch = try OsmAndDecoder.decode(
      request(
        query:
          "id=123456&timestamp=1377177267&cell=257,02,16,2224&cell=257,02,16,2223,-90&wifi=00-14-22-01-23-45,-80&wifi=00-1C-B3-09-85-15,-70"
      ))
    #expect(batch.positions.isEmpty && batch.ignored == 1 && batch.identity == .device("123456"))
  }

  // Source: OsmAndProtocolDecoderTest.java, testDecodeQuery (second: no id → Traccar 400).
  @Test func noDeviceIsA400() {
    #expect {
      try OsmAndDecoder.decode(request(query: "timestamp=1377177267&lat=60.0&lon=30.0"))
    } throws: { ($0 as? IngestError)?.status == 400 }
  }

  @Test(arguments: [
    ("2024-05-01T12:00:00%2B02:00", 1_714_557_600.0),  // +02:00
    ("2024-05-01T03:00:00-0700", 1_714_557_600.0),  // -0700
    ("2024-05-01T10:00:00.250Z", 1_714_557_600.25),
    ("2024-05-01%2010:00:00", 1_714_557_600.0),  // yyyy-MM-dd HH:mm:ss, UTC
    ("2147483646", 2_147_483_646.0),  // below Integer.MAX_VALUE: seconds
    ("2147483647", 2_147_483.647),  // from there: milliseconds
    ("1714557600250", 1_714_557_600.25),
  ])
  func everyTimestampForm(text: String, seconds: Double) throws {
    let fix = try #require(
      onlyFix(try OsmAndDecoder.decode(request(query: "id=1&lat=1&lon=2&timestamp=\(text)"))))
    #expect(close(fix.time.timeIntervalSince1970, seconds))
  }

  @Test(arguments: [
    "id=1&lat=91&lon=2", "id=1&lat=NaN&lon=2", "id=1&lat=0x10&lon=2", "id=1&lat=1",
    "id=1&location=1;2", "id=1&lat=1&lon=2&timestamp=2024-05-01T10:00:00",
    "id=1&lat=1&lon=2&timestamp=yesterday", "id=1&lat=1&lon=2&speed=fast", "id=1&lat=0&lon=0",
    "id=a%01b&lat=1&lon=2", "id=%20&lat=1&lon=2", "id=1&lat=1&lon=2&timestamp=-5",
  ])
  func badValuesAreA400(query: String) {
    #expect {
      try OsmAndDecoder.decode(request(query: query))
    } throws: { ($0 as? IngestError)?.status == 400 }
  }

  @Test func aFormBodyIsReadAndTheLastValueWins() throws {
    let batch = try OsmAndDecoder.decode(
      request(
        query: "secret=k%26y",
        headers: [("Content-Type", "application/x-www-form-urlencoded")],
        body: "id=7&lat=1&lat=59.5&lon=17.25&timestamp=1377177267"))
    #expect(batch.identity == .device("7") && batch.secret == "k&y")
    #expect(onlyFix(batch)?.coordinate.latitude == 59.5)
  }

  // Source: OsmAndProtocolDecoderTest.java, testDecodeJson (the first payload, Traccar
  // Client 9 on Android).
  @Test func traccarClientJSON() throws {
    let body =
      #"{"location":{"timestamp":"2025-06-15T13:45:12.862Z","coords":{"latitude":37.4219983,"longitude":-122.084,"accuracy":5,"speed":0,"heading":-1,"altitude":5},"is_moving":false,"odometer":0,"event":"motionchange","battery":{"level":1,"is_charging":false},"activity":{"type":"still"},"extras":{},"_":"&id=48241179&lat=37.4219983&lon=-122.084&timestamp=2025-06-15T13:45:12.862Z&"},"device_id":"48241179"}"#
    let batch = try OsmAndDecoder.decode(request(headers: jsonType, body: body))
    #expect(batch.identity == .device("48241179"))
    let fix = try #require(onlyFix(batch))
    #expect(fix.coordinate.latitude == 37.4219983 && fix.coordinate.longitude == -122.084)
    #expect(close(fix.time.timeIntervalSince1970, 1_749_995_112.862))
    #expect(fix.speedMetersPerSecond == 0 && fix.courseDegrees == nil)
    #expect(fix.horizontalAccuracyMeters == 5 && fix.altitudeMeters == 5)
    #expect(batch.unknownDevice().status == 404)
  }

  // Source: OsmAndProtocolDecoderTest.java, testDecodeJson (the iOS payload with speed -1
  // and a uuid; the last with speed 18.67 m/s).
  @Test func traccarClientJSONNegativeIsUnknownAndTheUUIDIsTheKey() throws {
    let ios =
      #"{"location":{"extras":{},"mock":true,"coords":{"speed_accuracy":-1,"speed":-1,"longitude":-122.406417,"ellipsoidal_altitude":0,"floor":null,"heading_accuracy":-1,"latitude":37.785834000000001,"accuracy":5,"altitude_accuracy":-1,"altitude":0,"heading":-1},"is_moving":false,"age":188,"odometer":0,"uuid":"2FB04C65-99CF-42AB-8DD3-EBCB4B108BF8","event":"motionchange","battery":{"level":-1,"is_charging":false},"activity":{"type":"unknown","confidence":100},"timestamp":"2025-05-09T04:11:30.579Z"},"device_id":"658765"}"#
    let position = try #require(
      try OsmAndDecoder.decode(request(headers: jsonType, body: ios)).positions.first)
    #expect(position.key == "2FB04C65-99CF-42AB-8DD3-EBCB4B108BF8")
    #expect(position.fix.speedMetersPerSecond == nil && position.fix.courseDegrees == nil)
    #expect(close(position.fix.time.timeIntervalSince1970, 1_746_763_890.579))
    let moving =
      #"{"location":{"event":"motionchange","is_moving":false,"uuid":"0e9a2473-a9a7-4c00-997b-fb97d2154e75","timestamp":"2021-07-21T08:06:34.444Z","odometer":0,"coords":{"latitude":-6.1148096,"longitude":106.6837015,"accuracy":3.8,"speed":18.67,"speed_accuracy":0.26,"heading":63,"heading_accuracy":0.28,"altitude":35.7,"altitude_accuracy":3.8},"activity":{"type":"still","confidence":100},"battery":{"is_charging":false,"level":0.79},"extras":{}},"device_id":"8737767034"}"#
    let fix = try #require(
      onlyFix(try OsmAndDecoder.decode(request(headers: jsonType, body: moving))))
    #expect(fix.speedMetersPerSecond == 18.67 && fix.courseDegrees == 63)
    #expect(close(fix.time.timeIntervalSince1970, 1_626_854_794.444))
  }

  @Test(arguments: [
    #"{"location":{"timestamp":"2025-06-15T13:45:12.862Z","coords":{"latitude":37.42"#,
    #"{"location":{"timestamp":"2025-06-15T13:45:12Z","coords":{"latitude":91,"longitude":1}},"device_id":"1"}"#,
    #"{"location":{"timestamp":"2025-06-15T13:45:12Z","coords":{"latitude":"1","longitude":1}},"device_id":"1"}"#,
    #"{"location":{"timestamp":1749995112,"coords":{"latitude":1,"longitude":1}},"device_id":"1"}"#,
    #"{"location":{"timestamp":"2025-06-15T13:45:12","coords":{"latitude":1,"longitude":1}},"device_id":"1"}"#,
    #"{"location":{"timestamp":"2025-06-15T13:45:12Z","coords":{"latitude":1,"longitude":1}},"device_id":48241179}"#,
    #"{"location":{"timestamp":"2025-06-15T13:45:12Z","coords":{"latitude":1,"longitude":1}}}"#,
    #"{"device_id":"1"}"#, "[]", "",
  ])
  func badJSONIsA400(body: String) {
    #expect {
      try OsmAndDecoder.decode(request(headers: jsonType, body: body))
    } throws: { ($0 as? IngestError)?.status == 400 }
  }
}
