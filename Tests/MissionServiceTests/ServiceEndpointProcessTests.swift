import Foundation
import ServiceTestSupport
import Testing

extension ServeSuite {
  /// Endpoints over real HTTP against the built binary, where the server's threads matter.
  @Suite(.enabled(if: ServeProcess.isAvailable, "needs the built missiontrack"))
  struct ServiceEndpointProcessTests {
    @Test func aLongImportDoesNotHoldOtherRequests() throws {
      let sandbox = try ServiceSandbox()
      let server = try sandbox.serve()
      defer { server.stop() }
      var csv = "id,lat,lon\n"
      for index in 0..<100_000 {
        csv +=
          "bulk-\(index),\(58 + Double(index % 1000) / 1000),\(16 + Double(index / 1000) / 250)\n"
      }
      let body = Array(csv.utf8)
      let started = Date()
      /// The import's status once it is answered.
      final class Outcome: @unchecked Sendable {
        private let lock = NSLock()
        private var status: Int?
        var value: Int? { lock.withLock { status } }
        func set(_ value: Int) { lock.withLock { status = value } }
      }
      let finished = Outcome()
      let port = server.port
      // Keep-alive connections opened first, so that some are served by the thread that
      // will take the import (a new connection would go to a free thread).
      let keptAlive = try (0..<6).map { _ in try RawHTTP(port: port, timeout: 60) }
      for connection in keptAlive {
        connection.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
        #expect(connection.readResponse(within: 10)?.status == 200)
      }
      let importThread = Thread {
        let response = try? RawHTTP.request(
          port: port, "POST", "/v1/missions", headers: ["Content-Type": "text/csv"],
          body: body, timeout: 300)
        finished.set(response?.status ?? 0)
      }
      importThread.start()
      var slowest = 0.0
      var answered = 0
      var round = 0
      // Issue 24 #2: nearby inside the imported area sees none of the import or all of it
      // (100 of its missions), never a part.
      var counts: Set<Int> = []
      while finished.value == nil {
        let connection = keptAlive[round % keptAlive.count]
        round += 1
        let asked = Date()
        connection.send(
          "GET /v1/missions?lat=58.5&lon=16.2&k=100&radius_m=50000 HTTP/1.1\r\n"
            + "Host: 127.0.0.1:\(port)\r\n\r\n")
        let nearby = connection.readResponse(within: 60)
        #expect(nearby?.status == 200)
        if let nearby { counts.insert(ServiceCheck.ids(nearby).count) }
        // Reads asked once the body had surely arrived and the import was being stored.
        if asked.timeIntervalSince(started) > 0.5, finished.value == nil {
          slowest = max(slowest, Date().timeIntervalSince(asked))
          answered += 1
        }
        usleep(10_000)
      }
      let took = Date().timeIntervalSince(started)
      #expect(finished.value == 201)
      #expect(counts.isSubset(of: [0, 100]), "nearby counts seen during the import: \(counts)")
      // A server thread held by the import would have left about half the reads waiting
      // for its end.
      if took > 2 {
        #expect(answered >= 10, "\(answered) reads in an import of \(took) s")
        #expect(slowest < took / 3, "slowest read \(slowest) s in an import of \(took) s")
      }
      #expect(
        ServiceCheck.ids(try ServiceCheck.get(server, "/v1/missions?lat=58&lon=16&radius_m=1"))
          == ["bulk-0"])
    }
  }
}
