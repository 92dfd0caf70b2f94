import Foundation
import ServiceTestSupport
import Synchronization
import Testing

/// Hostile bodies and query values, and racing writes, answered in-process
/// (`InProcessService`): what they test is the service's reading, not the sockets (those are
/// `ServiceHostileInputTests`). Outside the serialized `ServeSuite`, so they run beside it.
@Suite(.serialized, .enabled(if: ServeProcess.isAvailable, "needs the built missiontrack"))
struct ServiceHostileInputInProcessTests {
  @Test func invalidBodiesAreRefusedWithOneJSONErrorAndChangeNothing() async throws {
    let sandbox = try ServiceSandbox()
    try await InProcessService.run(sandbox) { server in
      let before = try await ServiceCheck.get(server, "/v1/missions?limit=10000").text
      let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
      let deepObject = #"{"id":"x","lat":1,"lon":2,"extra":"# + deep + "}"
      let cases: [(String, String, String?, [UInt8], Int)] = [
        ("POST", "/v1/missions", "application/json", Array("not json".utf8), 422),
        ("POST", "/v1/missions", "application/json", Array("[{\"id\":\"a\",".utf8), 422),
        ("POST", "/v1/missions", "application/json", Array("{\"id\":\"a\"}".utf8), 422),
        ("POST", "/v1/missions", "application/json", Array(deep.utf8), 422),
        ("POST", "/v1/missions", "application/json", Array("[\(deepObject)]".utf8), 422),
        ("POST", "/v1/missions", "application/json", [0x5B, 0x00, 0x5D], 422),
        ("POST", "/v1/missions", "application/json", [0x5B, 0x22, 0xFF, 0xFE, 0x22, 0x5D], 422),
        (
          "POST", "/v1/missions", "application/json",
          Array(#"[{"id":"n","lat":1e999,"lon":2}]"#.utf8), 422
        ),
        (
          "POST", "/v1/missions", "application/json",
          Array(#"[{"id":"n","lat":NaN,"lon":2}]"#.utf8), 422
        ),
        (
          "POST", "/v1/missions", "application/json",
          Array(
            ("[{\"id\":\"n\",\"lat\":1" + String(repeating: "0", count: 5000) + ",\"lon\":2}]")
              .utf8
          ),
          422
        ),
        ("POST", "/v1/missions", "application/geo+json", Array("{\"type\":\"Point\"}".utf8), 422),
        ("POST", "/v1/missions", "application/geo+json", Array(deep.utf8), 422),
        (
          "POST", "/v1/missions", "application/geo+json",
          Array(
            #"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[200,1]},"properties":{"id":"g"}}]}"#
              .utf8), 422
        ),
        (
          "POST", "/v1/missions", "application/geo+json",
          Array(
            #"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"LineString","coordinates":[[1,1],[2,2]]},"properties":{"id":"g"}}]}"#
              .utf8), 422
        ),
        ("POST", "/v1/missions", "text/csv", Array("id,lat,lon\nq,\"1,2\n".utf8), 422),
        ("POST", "/v1/missions", "text/csv", Array("id,lat,lon\nq,1,2,3\n".utf8), 422),
        ("POST", "/v1/missions", "text/csv", Array("lat,lon\n1,2\n".utf8), 422),
        ("POST", "/v1/missions", "text/csv", Array("id,lat,lon\nq,1\u{0}0,2\n".utf8), 422),
        (
          "POST", "/v1/missions", "text/csv",
          Array("id,lat,title,lon\nq,1,".utf8) + [0xC3, 0x28] + Array(",2\n".utf8), 422
        ),
        ("POST", "/v1/missions", "text/csv", Array("id,lat,lon\nq,nan,2\n".utf8), 422),
        ("POST", "/v1/missions", "text/csv", Array("id,lat,lon\nq,1,-Infinity\n".utf8), 422),
        ("PUT", "/v1/missions/p", "application/json", Array(deepObject.utf8), 400),
        ("PUT", "/v1/missions/p", "application/json", [0x7B, 0x00, 0x7D], 400),
        (
          "PUT", "/v1/missions/p", "application/json",
          [0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D],
          400
        ),
        // Valid JSON with a bad value: 422, as an import answers it (PUT reads as one).
        ("PUT", "/v1/missions/p", "application/json", Array(#"{"lat":1e999,"lon":2}"#.utf8), 422),
        ("PUT", "/v1/missions/p", "application/json", Array(#"{"lat":"1","lon":[2]}"#.utf8), 422),
      ]
      for (method, path, type, body, status) in cases {
        let response = try await server.request(
          method, path, headers: type.map { ["Content-Type": $0] } ?? [:], body: body)
        let message = ServiceCheck.error(response, status)
        #expect(message.count < 700, "\(message.prefix(100))…")
      }
      #expect(try await ServiceCheck.get(server, "/v1/missions?limit=10000").text == before)
      #expect(await ServiceCheck.healthy(server))
    }
  }

  @Test func hostileQueryValuesAreRefusedOnOneLine() async throws {
    let sandbox = try ServiceSandbox()
    try await InProcessService.run(sandbox) { server in
      let long = String(repeating: "9", count: 10_000)
      let cases: [(String, Int)] = [
        ("lat=nan&lon=0", 400), ("lat=NaN&lon=0", 400), ("lat=0&lon=-nan", 400),
        ("lat=inf&lon=0", 400), ("lat=infinity&lon=0", 400), ("lat=1e309&lon=0", 400),
        ("lat=1%00&lon=0", 400), ("lat=%00&lon=0", 400), ("lat=1%0A&lon=0", 400),
        ("lat=%ff%fe&lon=0", 400), ("lat=\(long)&lon=0", 400), ("lat=0&lon=0&k=\(long)", 400),
        ("lat=0&lon=0&radius_m=1e999", 400), ("lat=0&lon=0&state=%0Aopen", 422),
        ("limit=1%0A2", 400), ("limit=1%00", 400), ("limit=\(long)", 400),
        ("state=open%00", 422), ("lat=0x10&lon=0", 400), ("lat=0&lon=0x1p4", 400),
        ("lat=0&lon=0&radius_m=0x10", 400),
      ]
      for (query, status) in cases {
        let message = ServiceCheck.error(
          try await ServiceCheck.get(server, "/v1/missions?" + query), status)
        #expect(message.count < 300, "\(query.prefix(40)): \(message.prefix(100))")
      }
      // Beyond the nearby cap (a page's 10,000), as any value out of range: 422.
      for query in [
        "lat=59.6&lon=17.7&k=9223372036854775807", "lat=90&lon=180&k=100000000000&radius_m=1e15",
      ] {
        ServiceCheck.error(try await ServiceCheck.get(server, "/v1/missions?" + query), 422)
      }
      // Values at the edge of their range are answered, not crashed on.
      for query in [
        "lat=59.6&lon=17.7&k=10000", "lat=59.6&lon=17.7&radius_m=1.7976931348623157e308",
        "lat=-90&lon=-180&radius_m=0&k=0", "lat=90&lon=180&k=10000&radius_m=1e15",
        "limit=10000&after=%ff%fe", "limit=1&after=\(long)",
      ] {
        let response = try await ServiceCheck.get(server, "/v1/missions?" + query)
        #expect(response.status == 200, "\(query.prefix(60)): \(response.text.prefix(200))")
      }
      #expect(await ServiceCheck.healthy(server))
    }
  }

  @Test func racingWritesOnOneMissionNeverSurfaceInAnotherRequest() async throws {
    let sandbox = try ServiceSandbox(demo: false)
    try await InProcessService.run(sandbox) { server in
      let writes: [(String, String, String?)] = [
        ("PUT", "/v1/missions/race", #"{"lat":1,"lon":2.1}"#),
        ("POST", "/v1/missions/race/accept", nil), ("POST", "/v1/missions/race/start", nil),
        ("POST", "/v1/missions/race/cancel", nil),
      ]
      let reads = [
        "/v1/missions/race", "/v1/missions/race/report.svg", "/v1/missions/race/track",
      ]
      let odd = Mutex<[String]>([])
      let deadline = Date().addingTimeInterval(3)
      let done = DispatchSemaphore(value: 0)
      // Threads, not concurrentPerform: on a two-core machine that runs two at a time.
      let workers = 16
      for worker in 0..<workers {
        Thread {
          var step = worker
          while Date() < deadline {
            step += 7
            let response: RawHTTP.Response?
            let name: String
            if step % 2 == 0 {
              let (method, path, body) = writes[step / 2 % writes.count]
              name = "\(method) \(path)"
              response = server.requestOnThisThread(
                method, path, headers: body == nil ? [:] : ["Content-Type": "application/json"],
                body: Array((body ?? "").utf8))
              // A write is refused only for what it is: not tracked, not legal, not there.
              if let status = response?.status, ![200, 201, 404, 409].contains(status) {
                odd.withLock { $0.append("\(name) → \(status) \(response?.text ?? "")") }
              }
            } else {
              name = "GET " + reads[step / 2 % reads.count]
              response = server.requestOnThisThread("GET", reads[step / 2 % reads.count])
              // A read never answers with another request's failure.
              if let status = response?.status, status != 200 && status != 404 {
                odd.withLock { $0.append("\(name) → \(status) \(response?.text ?? "")") }
              }
            }
            if response == nil { odd.withLock { $0.append("\(name): no answer") } }
          }
          done.signal()
        }.start()
      }
      // Waited for on a thread of its own: the cooperative pool must stay free for the engine.
      await withCheckedContinuation { finished in
        Thread {
          for _ in 0..<workers { done.wait() }
          finished.resume()
        }.start()
      }
      #expect(odd.withLock { $0 } == [])
      #expect(await ServiceCheck.healthy(server))
    }
  }
}
