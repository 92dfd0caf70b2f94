import Delivery
import Foundation
import Ingest
import MissionCatalog
import MissionTracking
import TextRules

/// The device registrations that `/v1/ingest/…` looks up for every request, kept in memory.
///
/// Reading a phone's registration for each of its requests was a read transaction each,
/// on one reading connection the server threads take in turn: with the outbox's reads on
/// the same connection, a tenth of `serve`'s rate for single OsmAnd positions
/// (`Tools/bench-ingest`, docs/benchmarks.md, 2026-12-05).
///
/// A registration found is kept; an unknown device is read again each time (never kept, so
/// made-up ids cannot fill memory). Every registration kept is forgotten when this service
/// changes a worker (`forget()`), and when the store's registry version
/// (`ServiceStore.deviceRegistryVersion()`, which any change to a worker's devices moves,
/// from any process or node) has moved. That version is read at most once per `recheck`
/// (250 ms in `serve`), by the lookup that finds it due: a device removed or given another
/// secret by `missiontrack workers` or another node is refused at most `recheck` later.
///
/// An Overland batch may name no device: its token alone says whose it is. Those are found
/// through a map from a keyed digest of each Overland device's secret (a key of this
/// process's own, so the map's look-up compares digests, never the secrets), built from the
/// store's workers once per change, then checked in constant time; reading every worker
/// for each such batch cost O(workers) per request.
///
/// `@unchecked Sendable`: the mutable state is only touched while holding `lock`.
final class DeviceRegistrations: @unchecked Sendable {
  /// A registration: the worker the device feeds, and the device with its secret.
  typealias Registration = (worker: String, device: WorkerDevice)

  /// What a lookup names: the endpoint's protocol and the device id in NFC.
  private struct Key: Hashable {
    let protocolName: IngestProtocol
    let deviceID: String
  }

  private let database: any ServiceStore
  /// The longest another process's change to a registration goes unseen.
  private let recheck: Duration
  private let lock = NSLock()
  /// Guarded by `lock`: the registrations found since the last change.
  private var kept: [Key: Registration] = [:]
  /// Guarded by `lock`: the registry version `kept` was read at (nil before the first read).
  private var version: Int64?
  /// Guarded by `lock`: when the version was last read (or is being read).
  private var checked: ContinuousClock.Instant?
  /// Guarded by `lock`: moved each time `kept` is emptied, so that a registration read
  /// before a change is not kept after it.
  private var generation = 0
  /// Guarded by `lock`: every Overland device with a secret by the digest of its secret
  /// (the first worker's, as the store lists them, when two share one); nil until a batch
  /// that names no device asks after a change.
  private var overlandByDigest: [[UInt8]: Registration]?
  /// Keys the digests of the secrets; nil when libcrypto cannot (then such a batch is a 500).
  private let digests = try? HMACSHA256(key: (0..<32).map { _ in UInt8.random(in: .min ... .max) })

  /// The registrations of `database`'s workers, its registry version read again once
  /// `recheck` has passed.
  init(database: any ServiceStore, recheck: Duration = .milliseconds(250)) {
    self.database = database
    self.recheck = recheck
  }

  /// The registration of device `id` for the endpoint of `protocolName`, or nil when there
  /// is none: GPSLogger's custom URL speaks OsmAnd's protocol, so the OsmAnd endpoint also
  /// finds devices registered as `gpslogger`.
  /// - Throws: The store's error.
  func registration(_ protocolName: IngestProtocol, id: String) throws -> Registration? {
    try recheckIfDue()
    let key = Key(protocolName: protocolName, deviceID: Identifier.normalized(id))
    let (found, generation) = lock.withLock { (kept[key], self.generation) }
    if let found { return found }
    guard let read = try read(key) else { return nil }
    lock.withLock {
      if self.generation == generation { kept[key] = read }
    }
    return read
  }

  /// Forgets every registration kept: called once this service changed a worker.
  func forget() {
    lock.withLock { forgetLocked() }
  }

  private func forgetLocked() {
    kept = [:]
    overlandByDigest = nil
    generation += 1
  }

  /// The registration of the Overland device whose secret is `secret`, for a batch that
  /// names no device; nil when none has it.
  /// - Throws: The store's error; `ServiceError.internalError` when libcrypto cannot make
  ///   the digests.
  func overlandRegistration(presenting secret: String) throws -> Registration? {
    guard let digests else {
      throw ServiceError.internalError("libcrypto cannot compute HMAC-SHA256 for Overland tokens")
    }
    try recheckIfDue()
    let (known, generation) = lock.withLock { (overlandByDigest, self.generation) }
    let byDigest: [[UInt8]: Registration]
    if let known {
      byDigest = known
    } else {
      var built: [[UInt8]: Registration] = [:]
      for worker in try database.workers() {
        for device in worker.devices where device.ingestProtocol == .overland {
          guard let expected = device.secret else { continue }
          let digest = digests.authenticationCode(for: Array(expected.utf8))
          if built[digest] == nil { built[digest] = (worker.id, device) }
        }
      }
      lock.withLock {
        if self.generation == generation { overlandByDigest = built }
      }
      byDigest = built
    }
    guard let found = byDigest[digests.authenticationCode(for: Array(secret.utf8))],
      let expected = found.device.secret, IngestSecret.matches(secret, expected)
    else { return nil }
    return found
  }

  /// Reads the registry version when `recheck` has passed since it was last read, and
  /// forgets what is kept when it moved. One lookup reads it; the others meanwhile use
  /// what is kept.
  private func recheckIfDue() throws {
    let now = ContinuousClock.now
    let due = lock.withLock { () -> Bool in
      if let checked, now - checked < recheck { return false }
      checked = now
      return true
    }
    guard due else { return }
    let current: Int64
    do {
      current = try database.deviceRegistryVersion()
    } catch {
      // The next lookup reads it again (and forgets what is kept if it moved meanwhile).
      lock.withLock { checked = nil }
      throw error
    }
    lock.withLock {
      guard current != version else { return }
      version = current
      forgetLocked()
    }
  }

  /// The store's registration for `key`, with OsmAnd's fall-back to GPSLogger's.
  private func read(_ key: Key) throws -> Registration? {
    if let found = try database.device(key.protocolName, id: key.deviceID) { return found }
    guard key.protocolName == .osmand else { return nil }
    return try database.device(.gpslogger, id: key.deviceID)
  }
}
