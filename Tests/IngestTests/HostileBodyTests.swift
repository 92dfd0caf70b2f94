import Foundation
import MissionTracking
import Testing
import TextRules

@testable import Ingest

/// Bodies past the service's 16 MiB limit (it answers 413 before decoding; the decoders must
/// still be safe with them), nesting and bytes that are not UTF-8.
@Suite struct HostileBodyTests {
  private static let twentyMB = 20 * 1024 * 1024

  @Test func aTwentyMegabyteOverlandBatchCutShortIsA400NamingItsLine() throws {
    var body = #"{"locations":["# + "\n"
    var count = 0
    while body.utf8.count < Self.twentyMB {
      body += overlandFeature(lat: "59.\(count)") + ",\n"
      count += 1
    }
    // Cut inside the last point: the whole batch is refused, with the line it stopped at.
    #expect {
      try OverlandDecoder.decode(request(body: String(body.dropLast(50))))
    } throws: { error in
      guard let error = error as? IngestError else { return false }
      return error.status == 400 && error.message.contains("line \(count + 1)")
    }
  }

  @Test func twentyMegabytesOfFixLinesKeepAllButTheTruncatedLast() throws {
    let line =
      #"{"time":"2024-05-01T10:00:00.000Z","lat":59.5,"lon":17.5,"alt_m":12.5,"mode":3,"eph_m":3.2,"source":"nmea"}"#
      + "\n"
    let count = Self.twentyMB / line.utf8.count
    let body = String(repeating: line, count: count) + String(line.prefix(40))
    let batch = try FixLinesDecoder.decode(request(query: "worker=w", body: body))
    #expect(batch.positions.count == count)
    #expect(batch.rejected.map(\.line) == [count + 1])
  }

  @Test func aTwentyMegabyteValueIsReadOrRefusedInOneLine() throws {
    let pad = String(repeating: "x", count: Self.twentyMB)
    let owntracks = try OwnTracksDecoder.decode(
      request(
        query: "u=a&d=b",
        body: #"{"_type":"location","lat":1,"lon":2,"tst":1,"pad":""# + pad + "\"}"))
    #expect(owntracks.positions.count == 1)
    let osmAnd = try OsmAndDecoder.decode(request(body: "id=1&lat=1&lon=2&pad=" + pad))
    #expect(osmAnd.positions.count == 1)
    #expect {
      try OsmAndDecoder.decode(request(body: "id=" + pad + "&lat=1&lon=2"))
    } throws: { error in
      guard let error = error as? IngestError else { return false }
      return error.status == 400 && error.message.count < 400
    }
  }

  @Test(arguments: [IngestProtocol.owntracks, .osmand, .overland])
  func deepNestingIsRefusedNotACrash(protocolName: IngestProtocol) {
    let body = String(repeating: "[", count: 100_000)
    #expect(throws: IngestError.self) {
      try protocolName.decode(request(query: "id=1&u=a&d=b", headers: jsonType, body: body))
    }
  }

  @Test func aDeeplyNestedLineIsOneRejection() throws {
    let body = String(repeating: "[", count: 100_000) + "\n"
    let batch = try FixLinesDecoder.decode(request(query: "worker=w", body: body))
    #expect(batch.rejected.count == 1 && batch.rejected[0].reason.contains("nested too deeply"))
  }

  @Test func bytesThatAreNotUTF8AreRefusedOrReplaced() throws {
    var body = Array(#"{"_type":"location","lat":1,"lon":2,"tst":1,"topic":"owntracks/a/"#.utf8)
    body += [0xFF, 0xFE] + Array("\"}".utf8)
    #expect(throws: IngestError.self) {
      try OwnTracksDecoder.decode(IngestRequest(body: body))
    }
    let osmAnd = try OsmAndDecoder.decode(
      IngestRequest(body: Array("id=a".utf8) + [0xFF] + Array("&lat=1&lon=2".utf8)))
    #expect(osmAnd.identity == .device("a\u{FFFD}"))
  }
}
