import Foundation
import Testing

@testable import LiveSources

struct GPSDEndpointTests {
  @Test(arguments: [
    ("localhost:2947", "localhost", 2947),
    ("gps.local", "gps.local", 2947),
    (":4000", "localhost", 4000),
    ("127.0.0.1:39000", "127.0.0.1", 39_000),
    ("[::1]:2948", "::1", 2948),
    ("[fe80::1]", "fe80::1", 2947),
  ])
  func endpointsAreParsed(text: String, host: String, port: Int) throws {
    let source = try GPSDFixSource(endpoint: text)
    #expect(source.host == host)
    #expect(source.port == port)
  }

  @Test(arguments: ["host:", "host:0", "host:70000", "host:x", "::1:2947", "[::1", "[::1]x"])
  func badEndpointsAreRejected(text: String) {
    #expect(throws: LiveSourceError.self) { try GPSDFixSource(endpoint: text) }
  }

  @Test func endpointTextBracketsIPv6() {
    #expect(GPSDFixSource.endpointText(host: "::1", port: 2947) == "[::1]:2947")
    #expect(GPSDFixSource.endpointText(host: "localhost", port: 2947) == "localhost:2947")
  }

  @Test func errorsNameTheSettingAndValue() {
    #expect(throws: LiveSourceError.self) { try GPSDFixSource(host: "", port: 2947) }
    do {
      _ = try GPSDFixSource(port: 0)
      Issue.record("port 0 accepted")
    } catch {
      #expect(error.description == "invalid gpsd port '0': must be in 1...65535")
    }
  }
}
