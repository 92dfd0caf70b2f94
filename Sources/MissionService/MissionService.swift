import Foundation
import MissionCatalog
import MissionFiles
import MissionProximity
import MissionStore
import MissionTracking
import TextRules

/// `missiontrack serve`: the engine of one database behind an HTTP API (DESIGN.md §5).
///
/// The service adds no semantics of its own: lifecycle actions go to the engine (which
/// decides them and opens or closes the source), nearby queries read the engine's
/// directory, imports and exports use the store's own calls, and live events are the
/// store's event log as Server-Sent Events (`EventHub`). Requests run on the HTTP server's
/// threads; a route that needs the engine's actor waits for it there (`AsyncBridge`), but
/// for ingest, whose requests are answered later, their connections suspended
/// (`IngestWriter`).
package final class MissionService: @unchecked Sendable {
  /// The store of every route, the event hub and the outbox.
  let database: any ServiceStore
  let engine: MissionEngine
  let configuration: ServiceConfiguration
  let monitor: ServiceMonitor
  let hub: EventHub
  /// The server threads' polls between back-to-back requests (counted in `/metrics`).
  let idlePoll: IdlePoll
  private var server: HTTPServer?
  /// Webhooks and MQTT (DESIGN §9), from `start()` on.
  private var outbox: OutboxDispatcher?
  private var tasks: [Task<Void, Never>] = []
  private let lock = NSLock()
  private var stopping = false
  /// Held by the API's writes (imports, replace, remove, lifecycle actions), one at a time,
  /// so that "is it tracked?" and the write that depends on the answer see one state: a
  /// PUT racing a start could otherwise replace a mission the engine just began tracking.
  let writes = NSLock()
  /// Decides and commits the positions of `/v1/ingest/…` requests, a group at a time.
  let ingestWriter: IngestWriter
  /// The counts of `/v1/ingest/…` for `/metrics`.
  let ingestMetrics = IngestMetrics()
  /// The tracking leases of the workers phones feed.
  let phoneLeases: PhoneLeases
  /// The registrations of the devices phones present, kept in memory.
  let deviceRegistrations: DeviceRegistrations

  /// A service over `engine`, which must be opened over `database`.
  package init(
    database: any ServiceStore, engine: MissionEngine, configuration: ServiceConfiguration
  ) {
    self.database = database
    self.engine = engine
    self.configuration = configuration
    monitor = ServiceMonitor(sourceWorker: configuration.sourceWorker)
    hub = EventHub(database: database, keepaliveInterval: configuration.keepaliveSeconds)
    idlePoll = IdlePoll(window: configuration.limits.idlePoll)
    ingestWriter = IngestWriter(engine: engine, database: database)
    phoneLeases = PhoneLeases(
      database: database, engine: engine, ownWorker: configuration.sourceWorker)
    deviceRegistrations = DeviceRegistrations(database: database)
  }

  /// Starts listening and forwarding the engine's events; returns the base URL.
  /// - Throws: `ServiceError.listen` when the address cannot be bound.
  package func start() throws -> String {
    // Nearby answers copy each mission's JSON as the directory keeps it: encoded now, not
    // in the first request.
    engine.directory.keepJSON()
    let outbox = try makeOutbox()
    let server = try HTTPServer(
      host: configuration.host, port: configuration.port, limits: configuration.limits,
      commonHeaders: commonHeaders, idlePoll: idlePoll,
      admission: { [weak self] request in self?.admit(request) },
      answered: { [monitor] status in monitor.noteRequest(status: status) },
      // An ingest request never blocks its thread: it is answered later (`IngestWriter`).
      inline: { request in Self.isIngest(request) },
      handler: { [weak self] request in
        guard let self else {
          return .now(ServiceError.unavailable("the service is shutting down").response)
        }
        return self.answer(request)
      })
    lock.withLock { self.server = server }
    startForwardingEvents(outbox)
    let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
    return "http://\(host):\(server.port)"
  }

  /// Starts all that `start()` starts but the listener, for requests answered in-process
  /// (`respond(to:)`, in tests).
  func startWithoutListening() {
    engine.directory.keepJSON()
    // In-process tests configure no broker and no webhook flag: nothing here can fail but
    // the store, and then the service runs without the outbox, as it would say on stderr.
    do {
      startForwardingEvents(try makeOutbox())
    } catch {
      configuration.outbox.log("no webhooks or MQTT: \(error)")
      startForwardingEvents(nil)
    }
  }

  /// The outbox's dispatcher once started.
  var outboxDispatcher: OutboxDispatcher? { lock.withLock { outbox } }

  /// The headers of every response (the server adds them).
  var commonHeaders: [(String, String)] {
    var headers: [(String, String)] = [
      ("Content-Security-Policy", "default-src 'self'"),
      ("X-Content-Type-Options", "nosniff"),
      ("Cache-Control", "no-store"),
    ]
    if let origin = configuration.corsOrigin {
      headers.append(("Access-Control-Allow-Origin", origin))
      headers.append(("Vary", "Origin"))
    }
    return headers
  }

  /// The outbox's dispatcher, with the webhooks of `serve --webhook` stored.
  /// - Throws: `ServiceError.invalid` for a bad MQTT broker, prefix or webhook secret.
  private func makeOutbox() throws -> OutboxDispatcher {
    let outbox = try OutboxDispatcher(database: database, configuration: configuration.outbox)
    for (url, secret) in try outbox.installFlagWebhooks() {
      configuration.outbox.log("webhook \(url) signs with the new secret \(secret) (shown once)")
    }
    return outbox
  }

  /// The engine's events to the monitor, the event hub and the outbox, and their loops.
  private func startForwardingEvents(_ outbox: OutboxDispatcher?) {
    let engine = self.engine
    let monitor = self.monitor
    let hub = self.hub
    lock.withLock { self.outbox = outbox }
    tasks.append(
      Task {
        for await event in engine.events {
          monitor.note(event)
          hub.wake()
          outbox?.wake()
        }
      })
    tasks.append(Task { await hub.run() })
    if let outbox { tasks.append(Task { await outbox.run() }) }
  }

  /// Whether `stop()` has begun.
  var isStopping: Bool { lock.withLock { stopping } }

  /// Refuses new requests (503) and rolls back a long write in progress (an import), from
  /// any thread: a signal's handler calls it before `stop(reason:)` has a thread to run on.
  package func stopWrites() {
    let server = lock.withLock {
      stopping = true
      return self.server
    }
    server?.endWrites { [database] in database.interrupt() }
  }

  /// Refuses new requests (503), ends every event stream, rolls back a long write, stops
  /// listening and stops the engine (the held-back epoch is recorded, the source closed).
  package func stop(reason: String?) async {
    let server = lock.withLock {
      stopping = true
      defer { self.server = nil }
      return self.server
    }
    hub.close()
    server?.stop { [database] in database.interrupt() }
    await engine.shutdown(reason: reason)
    // After the engine: its last events are committed, and a pass may still send them.
    await outboxDispatcher?.close()
    for task in tasks { task.cancel() }
    for task in tasks { await task.value }
    tasks = []
  }

  // MARK: - Errors

  /// The status and one-line message for an error of the engine, the store or a route.
  static func serviceError(_ error: any Error) -> ServiceError {
    switch error {
    case let error as ServiceError: return error
    case let error as TrackingError:
      switch error {
      case .unknownMission(let id): return .notFound("no mission with id '\(oneLine(id))'")
      case .illegalTransition, .acceptedByAnother, .workerBusy, .changedElsewhere:
        return .conflict(oneLine("\(error)"))
      case .invalidConfiguration, .unknownWorker: return .invalid(oneLine("\(error)"))
      case .decidedElsewhere:
        // Other nodes kept deciding the worker's positions: the client sends them again.
        return .unavailable(oneLine("\(error)"))
      }
    case let error as StoreError:
      switch error {
      case .invalidMissionFile, .unreadableFile, .invalidWorker, .invalidWatch:
        return .invalid(oneLine("\(error)"))
      case .missionNotFound: return .notFound(oneLine("\(error)"))
      case .duplicateMission, .missionTracked, .trackingLeaseHeld, .secondTrackedMission,
        .trackedMissionRemoval, .deviceTaken, .workerTracking:
        // A write that conflicts with the stored state (an import that would make a second
        // mission of a worker active, a removal of the tracked one, a device another worker
        // has, the removal of a worker that tracks a mission, …).
        return .conflict(oneLine("\(error)"))
      case .invalidWebhook: return .invalid(oneLine("\(error)"))
      case .webhookNotFound: return .notFound(oneLine("\(error)"))
      case .busy, .readOnly, .full, .interrupted:
        // The database cannot take writes now (an interrupted write: the service is stopping).
        return .unavailable(oneLine("\(error)"))
      default: return .internalError(oneLine("\(error)"))
      }
    case let error as MissionRefusal: return .conflict(oneLine("\(error)"))
    case let error as WorkerRefusal:
      switch error {
      case .invalidWorker: return .invalid(oneLine("\(error)"))
      case .deviceTaken, .workerTracking: return .conflict(oneLine("\(error)"))
      }
    case let error as MissionFileError: return .invalid(oneLine("\(error)"))
    case let error as StoreAvailability where error.isUnavailable:
      return .unavailable(oneLine("\(error)"))
    case let error as ProximityError: return .invalid(oneLine("\(error)"))
    default: return .internalError(oneLine("\(error)"))
    }
  }

  /// `text` on one line, at most `limit` characters: the shared rule (`TextRules.oneLine`)
  /// with the service's default limit for what a client sent.
  static func oneLine(_ text: String, limit: Int = 500) -> String {
    TextRules.oneLine(text, limit: limit)
  }
}
