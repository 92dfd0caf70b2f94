import Foundation
import ServiceTestSupport
import Testing

/// A phone's request does not wait for the database's writer: its sender is looked up on a
/// read-only connection of its own (`MissionService.lookups`), so a long write — here an
/// import of some 560,000 missions in one transaction — does not hold up the phones.
@Suite(.enabled(if: ServeProcess.isAvailable, "needs the built missiontrack"))
struct IngestDuringImportTests {
  @Test func aPhoneIsAnsweredWhileALargeImportHoldsTheWriter() throws {
    let sandbox = try ServiceSandbox(demo: false)
    let server = try sandbox.serve()
    defer { server.stop() }
    let put = try ServiceCheck.send(
      server, "PUT", "/v1/workers/bo", contentType: "application/json",
      #"{"devices":[{"protocol":"osmand","device_id":"bo-phone","secret":"s3cret"}]}"#)
    #expect(put.status == 201, "\(put.status) \(put.text)")

    let upload = try LargeImport(server)
    #expect(
      upload.waitUntilStoring(databasePath: sandbox.databasePath), "the import never began storing")

    // Bo has no tracked mission: the position is acknowledged and dropped, which needs
    // nothing of the writer. Answered before the import is: the lookup did not queue
    // behind the import's transaction (it did, before the lookups had their connection).
    let time = Int(Date().timeIntervalSince1970)
    let phone = try RawHTTP.request(
      port: server.port, "GET",
      "/v1/ingest/osmand?id=bo-phone&secret=s3cret&lat=55.1&lon=17.1&timestamp=\(time)")
    let importAnswered = upload.answered
    #expect(phone.status == 200, "\(phone.status) \(phone.text)")
    #expect(
      importAnswered == nil, "the phone was answered only after the import (\(importAnswered ?? 0))"
    )
    #expect(upload.wait(seconds: 120) == 201)
    let metrics = try ServiceCheck.get(server, "/metrics").text
    #expect(
      metrics.contains(
        #"missiontrack_ingest_positions_total{protocol="osmand",outcome="untracked"} 1"#),
      "\(metrics.split(separator: "\n").filter { $0.contains("osmand") })")
  }
}
