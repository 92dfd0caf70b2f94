import Foundation
import MissionTracking
import Testing

@testable import Ingest

@Suite struct OwnTracksDecoderTests {
  // Source: owntracks/booklet docs/tech/http.md, "Testing your HTTP endpoint" (the `jo`
  // payload with user jane, device phone, and the query ?u=&d=); tst fixed.
  @Test func bookletTestPayloadNamesTheDeviceByQuery() throws {
    let body =
      #"{"_type":"location","t":"u","batt":11,"lat":48.856826,"lon":2.292713,"tid":"JJ","tst":1700000000,"topic":"owntracks/jane/phone"}"#
    let batch = try OwnTracksDecoder.decode(request(query: "u=jane&d=phone", body: body))
    #expect(batch.identity == .device("jane/phone"))
    let fix = try #require(onlyFix(batch))
    #expect(fix.coordinate.latitude == 48.856826 && fix.coordinate.longitude == 2.292713)
    #expect(fix.time == Date(timeIntervalSince1970: 1_700_000_000))
    #expect(fix.source == "owntracks" && fix.mode == .twoD)
    #expect(fix.speedMetersPerSecond == nil && fix.altitudeMeters == nil)
  }

  // Source: owntracks/booklet docs/tech/http.md, "Distinguishing payloads" (the headers).
  @Test func limitHeadersComeBeforeQueryAndTopic() throws {
    let body =
      #"{"_type":"location","lat":48.85,"lon":2.295,"tid":"JJ","tst":1497476456,"topic":"owntracks/other/thing"}"#
    let batch = try OwnTracksDecoder.decode(
      request(
        query: "u=q&d=r", headers: [("X-Limit-U", "jjolie"), ("x-limit-d", "myphone")],
        body: body))
    #expect(batch.identity == .device("jjolie/myphone"))
    let byQuery = try OwnTracksDecoder.decode(request(query: "u=q&d=r", body: body))
    #expect(byQuery.identity == .device("q/r"))
    let byTopic = try OwnTracksDecoder.decode(request(body: body))
    #expect(byTopic.identity == .device("other/thing"))
  }

  @Test func emptyIdentityHeadersFallBackToTheTopic() throws {
    let batch = try OwnTracksDecoder.decode(
      request(
        headers: [("X-Limit-U", ""), ("X-Limit-D", "")],
        body: #"{"_type":"location","lat":1,"lon":2,"tst":1497349316,"topic":"owntracks/u/d"}"#))
    #expect(batch.identity == .device("u/d"))
  }

  // Source: traccar/traccar src/test/java/org/traccar/protocol/OwnTracksProtocolDecoderTest.java
  // (third payload): vel 61 km/h, cog 271, acc 5, alt 167.
  @Test func traccarTestPayloadConvertsKilometresPerHour() throws {
    let body =
      #"{"cog":271,"lon":2.29513,"acc":5,"vel":61,"vac":21,"lat":48.85833,"tst":1497349316,"alt":167,"_type":"location","tid":"JJ","t":"u","batt":67}"#
    let fix = try #require(
      onlyFix(try OwnTracksDecoder.decode(request(query: "u=u&d=d", body: body))))
    #expect(close(fix.speedMetersPerSecond, 61 / 3.6))
    #expect(fix.courseDegrees == 271 && fix.horizontalAccuracyMeters == 5)
    #expect(fix.altitudeMeters == 167 && fix.mode == .threeD)
    #expect(fix.time == Date(timeIntervalSince1970: 1_497_349_316))
  }

  // Source: OwnTracksProtocolDecoderTest.java (fifth and sixth payloads: iOS with a topic,
  // qtripp with a topic).
  @Test(arguments: [
    (
      #"{"lon":-122,"acc":5,"created_at":1736161415,"lat":37,"topic":"owntracks/ckrey/22A67880-15C3-41A6-9157-25545C7993AC","t":"u","m":1,"tst":1736161169,"conn":"w","alt":0,"_type":"location","tid":"AC"}"#,
      "ckrey/22A67880-15C3-41A6-9157-25545C7993AC", 37.0, -122.0, 1_736_161_169.0
    ),
    (
      #"{"topic":"owntracks/qtripp/865284041968706","lat":47.420051,"lon":13.654704,"vel":0,"cog":113,"tst":1736519167,"mcc":232,"mnc":1,"lac":"4F4D","cid":"673A","_type":"location","acc":10,"alt":1113,"t":"I","don":105,"tid":"CS"}"#,
      "qtripp/865284041968706", 47.420051, 13.654704, 1_736_519_167.0
    ),
  ])
  func traccarTopicPayloadsNameTheirDevice(
    body: String, device: String, lat: Double, lon: Double, tst: Double
  ) throws {
    let batch = try OwnTracksDecoder.decode(request(body: body))
    #expect(batch.identity == .device(device))
    let fix = try #require(onlyFix(batch))
    #expect(fix.coordinate.latitude == lat && fix.coordinate.longitude == lon)
    #expect(fix.time == Date(timeIntervalSince1970: tst))
  }

  @Test func tstAsAStringAndMinusOneAsUnknown() throws {
    let body =
      #"{"_type":"location","lat":1.5,"lon":2.5,"tst":"1497349316","acc":-1,"alt":-1,"vel":-1,"cog":-1,"_id":"a1b2"}"#
    let batch = try OwnTracksDecoder.decode(request(query: "u=a&d=b", body: body))
    let position = try #require(batch.positions.first)
    #expect(position.fix.time == Date(timeIntervalSince1970: 1_497_349_316))
    #expect(position.fix.horizontalAccuracyMeters == nil && position.fix.altitudeMeters == nil)
    #expect(position.fix.speedMetersPerSecond == nil && position.fix.courseDegrees == nil)
    #expect(position.key == "a1b2")
  }

  @Test(arguments: [
    "", "  \n", #"{"_type":"lwt","tst":1497349316}"#, #"{"_type":"transition","event":"enter"}"#,
    #"{"_type":"encrypted","data":"AAAA"}"#,
  ])
  func otherTypesAndEmptyBodiesAreAcknowledgedAndIgnored(body: String) throws {
    let batch = try OwnTracksDecoder.decode(request(body: body))
    #expect(batch.positions.isEmpty && batch.ignored == 1)
  }

  @Test func theSecretIsTheBasicPassword() throws {
    let credentials = Data("jane:s3cr:et".utf8).base64EncodedString()
    let batch = try OwnTracksDecoder.decode(
      request(
        query: "u=jane&d=phone", headers: [("Authorization", "Basic \(credentials)")],
        body: #"{"_type":"location","lat":1,"lon":2,"tst":1497349316}"#))
    #expect(batch.secret == "s3cr:et")
  }

  @Test(arguments: [
    (#"{"_type":"location","lat":91,"lon":2,"tst":1497349316}"#, "latitude 91"),
    (#"{"_type":"location","lat":"48.8","lon":2,"tst":1497349316}"#, "lat is a string"),
    (#"{"_type":"location","lat":0,"lon":0,"tst":1497349316}"#, "(0, 0)"),
    (#"{"_type":"location","lat":1,"lon":2}"#, "tst is required"),
    (#"{"_type":"location","lat":1,"lon":2,"tst":true}"#, "tst is a boolean"),
    (#"{"_type":"location","lat":1,"lon":2,"tst":1e300}"#, "tst is not epoch seconds"),
    (#"{"_type":"location","lat":NaN,"lon":2,"tst":1}"#, "not JSON"),
    (#"{"_type":"location","lat":1,"lon":2,"tst":14973"#, "not JSON"),
    (#"[{"_type":"location"}]"#, "not a JSON object"),
    (#"{"lat":1,"lon":2,"tst":1497349316}"#, "no _type"),
    (#"{"_type":"location","lat":1,"lon":2,"tst":1497349316,"topic":"jane/phone"}"#, "topic"),
  ])
  func badLocationsAreRefusedWith400(body: String, says: String) {
    #expect {
      _ = try OwnTracksDecoder.decode(
        request(query: body.contains("topic") ? "" : "u=a&d=b", body: body))
    } throws: { error in
      guard let error = error as? IngestError else { return false }
      return error.status == 400 && error.message.contains(says) && !error.message.contains("\n")
    }
  }

  @Test func aLocationWithoutIdentityIsRefused() {
    #expect(throws: IngestError.self) {
      try OwnTracksDecoder.decode(request(body: #"{"_type":"location","lat":1,"lon":2,"tst":1}"#))
    }
  }

  @Test func controlCharactersInTheUserAreRefused() {
    #expect {
      try OwnTracksDecoder.decode(
        request(
          headers: [("X-Limit-U", "ja\u{1B}[2Jne"), ("X-Limit-D", "phone")],
          body: #"{"_type":"location","lat":1,"lon":2,"tst":1497349316}"#))
    } throws: { error in
      (error as? IngestError)?.message.contains("\\x1B") == true
    }
  }
}
