import Foundation
import MissionTracking
import Testing

@testable import MissionService

/// The monitor behind `/v1/status`, `/healthz` and the source metrics describes the source of
/// one worker (`serve --worker W`, default `local`): other workers' events are counted, but
/// say nothing about that source.
struct ServiceMonitorTests {
  @Test func anotherWorkersMissionEndingLeavesTheSourceAsItWas() {
    let monitor = ServiceMonitor(sourceWorker: "local")
    let now = Date(timeIntervalSince1970: 1_780_000_000)
    func event(_ worker: String, _ kind: TrackingEvent.Kind) -> TrackingEvent {
      TrackingEvent(
        time: now, missionID: worker == "local" ? "m-local" : "m-bo", workerID: worker, kind: kind)
    }
    monitor.note(event("local", .state(from: .accepted, to: .active)), now: now)
    monitor.note(event("local", .source(.connected, detail: "gpsd")), now: now)
    // Worker bo's mission starts, its source fails and it is cancelled.
    monitor.note(event("bo", .state(from: .accepted, to: .active)), now: now)
    monitor.note(event("bo", .source(.disconnected, detail: "phone")), now: now)
    monitor.note(event("bo", .state(from: .active, to: .cancelled)), now: now)
    let view = monitor.sourceView
    #expect(view.status == "connected" && view.detail == "gpsd" && view.downSince == nil)
    #expect(monitor.counts.events["state"] == 3 && monitor.counts.events["source"] == 2)
    // Local's own end still makes it idle.
    monitor.note(event("local", .state(from: .active, to: .submitted)), now: now)
    #expect(monitor.sourceView.status == "idle")
  }
}
