import Foundation
import MissionStore
import MissionTracking
import Testing

@testable import MissionService

/// `DeviceRegistrations` over a real SQLite file, changed through a second `MissionDatabase`
/// on the same file (as `missiontrack workers` changes it while `serve` runs): a found
/// registration is kept until the registry version moves or this service changes a worker;
/// an unknown device is never kept.
@Suite struct DeviceRegistrationsTests {
  /// The file (removed with it).
  private let sandbox: ServiceSandbox

  init() throws { sandbox = try ServiceSandbox(demo: false) }

  /// The service's store and another process's, on one file.
  private func stores() throws -> (service: MissionDatabase, other: MissionDatabase) {
    (
      try MissionDatabase(path: sandbox.databasePath),
      try MissionDatabase(path: sandbox.databasePath)
    )
  }

  private func phone(_ secret: String?, worker: String = "w") -> Worker {
    Worker(
      id: worker, devices: [WorkerDevice(ingestProtocol: .osmand, deviceID: "p1", secret: secret)])
  }

  /// The secret `registrations` finds for the phone `p1`.
  private func secret(_ registrations: DeviceRegistrations) throws -> String? {
    try registrations.registration(.osmand, id: "p1")?.device.secret
  }

  @Test func aFoundRegistrationIsKeptUntilTheServiceForgetsIt() throws {
    let (service, other) = try stores()
    try other.putWorker(phone("s1"))
    // A recheck that never comes due within the test: only `forget()` drops what is kept.
    let registrations = DeviceRegistrations(database: service, recheck: .seconds(3600))
    #expect(try secret(registrations) == "s1")
    try other.putWorker(phone("s2"))
    #expect(try secret(registrations) == "s1")
    registrations.forget()
    #expect(try secret(registrations) == "s2")
  }

  @Test func anotherProcesssChangeIsSeenOnceTheVersionIsReadAgain() throws {
    let (service, other) = try stores()
    try other.putWorker(phone("s1"))
    let registrations = DeviceRegistrations(database: service, recheck: .milliseconds(100))
    #expect(try secret(registrations) == "s1")
    try other.putWorker(phone("s2"))
    Thread.sleep(forTimeInterval: 0.15)
    #expect(try secret(registrations) == "s2")
    // Removing the worker removes its devices by cascade, which moves the version too.
    #expect(try other.removeWorker("w"))
    Thread.sleep(forTimeInterval: 0.15)
    #expect(try secret(registrations) == nil)
  }

  /// A store that cannot be read is the lookup's error, every time: never an answer from
  /// what was kept before, which may be stale by then.
  @Test func aVersionThatCannotBeReadIsAnErrorNotAKeptAnswer() throws {
    let (service, other) = try stores()
    try other.putWorker(phone("s1"))
    let registrations = DeviceRegistrations(database: service, recheck: .zero)
    #expect(try secret(registrations) == "s1")
    try service.close()
    for _ in 0..<2 {
      #expect(throws: StoreError.self) { try secret(registrations) }
    }
  }

  @Test func anUnknownDeviceIsNotKeptAndOsmAndFindsGPSLoggersDevices() throws {
    let (service, other) = try stores()
    let registrations = DeviceRegistrations(database: service, recheck: .seconds(3600))
    #expect(try registrations.registration(.osmand, id: "g1") == nil)
    try other.putWorker(
      Worker(id: "w", devices: [WorkerDevice(ingestProtocol: .gpslogger, deviceID: "g1")]))
    // Registered after a miss: found at once, the miss was not kept.
    #expect(try registrations.registration(.osmand, id: "g1")?.worker == "w")
    #expect(try registrations.registration(.gpslogger, id: "g1")?.worker == "w")
    #expect(try registrations.registration(.overland, id: "g1") == nil)
    // The id is looked up in NFC, as the store keeps it.
    try other.putWorker(
      Worker(id: "v", devices: [WorkerDevice(ingestProtocol: .osmand, deviceID: "caf\u{E9}")]))
    #expect(try registrations.registration(.osmand, id: "cafe\u{301}")?.worker == "v")
  }

  /// An Overland batch that names no device is its token's: found through the digests of
  /// the Overland devices' secrets, never another protocol's, and again after a change.
  @Test func anOverlandTokenAloneFindsItsDeviceUntilItsSecretChanges() throws {
    let (service, other) = try stores()
    func overland(_ id: String, _ secret: String?) -> WorkerDevice {
      WorkerDevice(ingestProtocol: .overland, deviceID: id, secret: secret)
    }
    try other.putWorker(Worker(id: "a", devices: [overland("ia", "tok-a")]))
    try other.putWorker(
      Worker(
        id: "b",
        devices: [
          overland("ib", "tok-b"),
          WorkerDevice(ingestProtocol: .osmand, deviceID: "ob", secret: "tok-o"),
        ]))
    try other.putWorker(Worker(id: "c", devices: [overland("ic", nil)]))
    let registrations = DeviceRegistrations(database: service, recheck: .milliseconds(100))
    #expect(try registrations.overlandRegistration(presenting: "tok-a")?.worker == "a")
    #expect(try registrations.overlandRegistration(presenting: "tok-b")?.device.deviceID == "ib")
    // Another protocol's secret, a prefix, an empty token, one with a space: nobody's.
    for token in ["tok-o", "tok-", "", "tok-a "] {
      #expect(try registrations.overlandRegistration(presenting: token) == nil, "\(token)")
    }
    try other.putWorker(Worker(id: "a", devices: [overland("ia", "tok-new")]))
    Thread.sleep(forTimeInterval: 0.15)
    #expect(try registrations.overlandRegistration(presenting: "tok-a") == nil)
    #expect(try registrations.overlandRegistration(presenting: "tok-new")?.worker == "a")
  }

  @Test func theRegistryVersionMovesWithEveryChangeToDevicesOnly() throws {
    let (service, other) = try stores()
    let start = try service.deviceRegistryVersion()
    try other.putWorker(Worker(id: "w"))
    #expect(try service.deviceRegistryVersion() == start)
    try other.putWorker(phone("s1"))
    let registered = try service.deviceRegistryVersion()
    #expect(registered > start)
    try other.putWorker(phone("s2"))
    let changed = try service.deviceRegistryVersion()
    #expect(changed > registered)
    #expect(try other.removeWorker("w"))
    #expect(try service.deviceRegistryVersion() > changed)
  }
}
