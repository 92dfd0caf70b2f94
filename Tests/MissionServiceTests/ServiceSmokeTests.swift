import Foundation
import ServiceTestSupport
import Testing

extension ServeSuite {
  /// The served API answers over real HTTP on loopback: status, nearby, a page, an unknown path.
  @Suite(.enabled(if: ServeProcess.isAvailable, "needs the built missiontrack"))
  struct ServiceSmokeTests {
    @Test func statusNearbyAndErrorsOverHTTP() throws {
      let sandbox = try ServiceSandbox()
      let server = try sandbox.serve()
      defer { server.stop() }
      let status = try RawHTTP.request(port: server.port, "GET", "/v1/status")
      #expect(status.status == 200)
      let missions = status.json?["missions"] as? [String: Int]
      #expect(missions?["open"] == 6)
      #expect(status.json?["active_mission"] is NSNull)
      #expect(status.headers["content-security-policy"] == "default-src 'self'")

      let nearby = try RawHTTP.request(
        port: server.port, "GET", "/v1/missions?lat=59.6238&lon=17.7352&radius_m=1500")
      let found = (nearby.json?["missions"] as? [[String: Any]]) ?? []
      // The same missions, in the same order, as the CLI's nearby on the same database.
      let cli = try ServeProcess.run(
        [
          "nearby", "--lat", "59.6238", "--lon", "17.7352", "--radius", "1500", "--json", "--db",
          sandbox.databasePath,
        ], in: sandbox.directory)
      let expected = cli.out.split(separator: "\n").compactMap {
        (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
      }
      #expect(!expected.isEmpty)
      #expect(
        found.compactMap { $0["id"] as? String } == expected.compactMap { $0["id"] as? String })
      #expect(
        found.compactMap { $0["distance_m"] as? Double }
          == expected.compactMap { $0["distance_m"] as? Double })

      let missing = try RawHTTP.request(port: server.port, "GET", "/v2/nothing")
      #expect(missing.status == 404)
      let error = missing.json?["error"] as? [String: Any]
      #expect(error?["status"] as? Int == 404)
      let stopped = server.stop()
      #expect(stopped.status == 0)
      #expect(stopped.seconds < 2)
    }
  }
}
