import Foundation
import ServiceTestSupport
import Testing

extension ServeSuite {
  /// Races between the API and the CLI on one database, against the built binary.
  @Suite(.enabled(if: ServeProcess.isAvailable, "needs the built missiontrack"))
  struct ServiceRaceTests {
    /// Issue 24 #1: `missions accept` and `missions start` from a shell, then `DELETE` at
    /// once. The service's own view lags the other process by up to a poll; the store
    /// refuses the removal in the transaction that would delete.
    @Test func aRemovalRightAfterAStartFromTheCLIIsRefused() throws {
      // Three tries, each on a fresh service (a tracked mission's recorded events would
      // otherwise be left over for the next try).
      for id in ["sig-103", "sig-104", "sig-105"] {
        let sandbox = try ServiceSandbox()
        let server = try sandbox.serve()
        defer { server.stop() }
        // Seen by the service as open first, so its view is the stale one.
        #expect(try ServiceCheck.get(server, "/v1/missions/\(id)").status == 200)
        #expect(try sandbox.cli(["missions", "accept", id]).status == 0)
        #expect(try sandbox.cli(["missions", "start", id]).status == 0)
        let removal = try RawHTTP.request(port: server.port, "DELETE", "/v1/missions/\(id)")
        #expect(
          ServiceCheck.error(removal, 409)
            == "mission '\(id)' is active: submit or cancel it before you remove it")
        // Nothing of it went: the mission and its history are there.
        let shown = try sandbox.cli(["missions", "show", id, "--json"])
        #expect(shown.status == 0, "\(shown.err)")
        #expect(shown.out.contains(#""state":"active""#), "\(shown.out)")
        #expect(shown.out.contains(#""action":"start""#), "\(shown.out)")
      }
    }
  }
}
