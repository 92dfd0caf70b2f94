import Foundation
import MissionCatalog
import MissionStore
import MissionTracking

/// The Server-Sent Events of `GET /v1/events`: every stored event, in sequence order, to
/// each client.
///
/// Each client has its own position in the store's event log (the `seq` it was last sent),
/// so a client that connects with `Last-Event-ID` (or `after`) first gets every stored
/// event after it — also events recorded before a daemon restart — and then the live ones,
/// none twice. Live events are fanned out from memory: each pump reads the events committed
/// since the previous one once (`committedEvents`, which never forces the writer's group
/// commit), encodes each once, and pushes the same bytes to every client that is caught up
/// (the `seq` comes with the committed row, so no seq has to travel with the engine's
/// in-memory events, and events another process wrote arrive the same way). Only a client
/// behind (a `Last-Event-ID`, or a page behind) reads the store for itself. Only committed
/// events are sent, so what a client is told is durable. A client is sent events only while
/// it has room; one that has not read its queued events for `stallLimit`, or whose buffer
/// overflows, is dropped, and tracking never waits for a client. A `: keepalive` comment
/// goes to every client idle for `keepaliveInterval`.
final class EventHub: @unchecked Sendable {
  /// One connected client.
  private final class Client {
    let stream: ResponseStream
    let missionID: String?
    let workerID: String?
    var lastSent: Int64
    var lastWrite: Date
    var stalledSince: Date?

    init(stream: ResponseStream, missionID: String?, workerID: String?, lastSent: Int64, now: Date)
    {
      self.stream = stream
      self.missionID = missionID
      self.workerID = workerID
      self.lastSent = lastSent
      self.lastWrite = now
    }
  }

  /// One event as every client is sent it, encoded once.
  private struct EncodedEvent {
    let sequence: Int64
    let missionID: String
    let workerID: String?
    let bytes: [UInt8]

    init(_ stored: StoredEvent) {
      sequence = stored.sequence
      missionID = stored.missionID
      workerID = stored.event.workerID
      var bytes = Array("id: \(stored.sequence)\nevent: \(stored.event.type)\ndata: ".utf8)
      bytes.append(contentsOf: stored.jsonLine.utf8)
      bytes.append(contentsOf: "\n\n".utf8)
      self.bytes = bytes
    }
  }

  private let database: any ServiceStore
  private let lock = NSLock()
  private var clients: [Client] = []
  private var woken = false
  private var closed = false
  private var dropped = 0
  /// The newest committed event the pumps read (nil before the first): only `run`'s task
  /// touches it.
  private var head: Int64?
  /// Events per store read for one client.
  let pageSize = 500
  let keepaliveInterval: TimeInterval
  let stallLimit: TimeInterval

  init(
    database: any ServiceStore, keepaliveInterval: TimeInterval = 15, stallLimit: TimeInterval = 5
  ) {
    self.database = database
    self.keepaliveInterval = keepaliveInterval
    self.stallLimit = stallLimit
  }

  /// Number of connected clients, and of clients dropped for being too slow.
  var clientCounts: (connected: Int, dropped: Int) {
    lock.withLock { (clients.count, dropped) }
  }

  /// A new client's stream: events after `after` (from the newest stored event on when
  /// nil or past it), only mission `missionID`'s and worker `workerID`'s when given; the
  /// filter holds for the stored events sent first and for the live ones alike.
  /// - Throws: `ServiceError.unavailable` when shutting down; the store's error.
  func subscribe(after: Int64?, missionID: String?, workerID: String? = nil) throws
    -> ResponseStream
  {
    // An id past the log's end (a client of another database, or one that made it up)
    // starts at the end: left as it is, no event would reach the client until the log grew
    // past it.
    let last = try database.lastEventSequence()
    let start = min(after ?? last, last)
    let stream = ResponseStream()
    stream.push(Array("retry: 2000\n\n".utf8))
    try lock.withLock {
      guard !closed else { throw ServiceError.unavailable("the service is shutting down") }
      clients.append(
        Client(
          stream: stream, missionID: missionID, workerID: workerID, lastSent: start, now: Date()))
      woken = true
    }
    return stream
  }

  /// New events may be in the store.
  func wake() { lock.withLock { woken = true } }

  /// Sends events until `close()`: within `tick` of a wake-up, else at least every
  /// `pollInterval` (events still in the writer's group commit when the engine woke it, and
  /// events written by other processes). A pump with nothing new costs one indexed query
  /// for all clients; a tick with no wake-up and no poll due costs a lock.
  ///
  /// The poll follows `serve`'s group commit (20 ms): with a 100 ms tick and poll, a fix
  /// reached an SSE client 145 ms (median) to 300 ms (p99) after it was sent, at 1,000
  /// workers × 1 fix/s (`Tools/bench-fleet-latency`).
  func run(pollInterval: Duration = .milliseconds(20), tick: Duration = .milliseconds(5)) async {
    var sincePump = Duration.zero
    while !Task.isCancelled {
      try? await Task.sleep(for: tick)
      sincePump += tick
      let (due, done) = lock.withLock { () -> (Bool, Bool) in
        let due = woken || sincePump >= pollInterval
        woken = false
        return (due, closed)
      }
      if done { return }
      if due {
        sincePump = .zero
        pump()
      }
    }
  }

  /// Ends every stream (their queued events are still sent) and refuses new clients.
  func close() {
    let all = lock.withLock {
      closed = true
      let all = clients
      clients = []
      return all
    }
    for client in all { client.stream.close() }
  }

  private func pump() {
    let now = Date()
    let current = lock.withLock { clients }
    guard !current.isEmpty else {
      // Nobody to send to: only the head moves (one indexed read); no event is read or
      // encoded (that was a tenth of serve's CPU under phone ingest with no client).
      head = (try? database.lastCommittedSequence()) ?? head
      return
    }
    // What was committed since the last pump, read once for every client and encoded once:
    // the live clients are sent these same bytes. Only a client behind `head` (it connected
    // with `Last-Event-ID`/`after`, or fell a page behind) reads the store itself.
    let previousHead = head
    var fresh: [EncodedEvent] = []
    if let previousHead {
      let events =
        (try? database.committedEvents(afterSequence: previousHead, limit: pageSize)) ?? []
      fresh = events.map(EncodedEvent.init)
      if let last = events.last { head = last.sequence }
      if events.count == pageSize { wake() }
    } else {
      head = (try? database.lastCommittedSequence()) ?? 0
    }
    let currentHead = head ?? 0
    // Every fresh event, for the clients of every mission that had all before them.
    let all = fresh.reduce(into: [UInt8]()) { $0.append(contentsOf: $1.bytes) }
    var gone: [ObjectIdentifier] = []
    for client in current {
      if client.stream.isClosed {
        gone.append(ObjectIdentifier(client))
        continue
      }
      if client.stream.pendingCount > client.stream.capacity / 2 {
        let since = client.stalledSince ?? now
        client.stalledSince = since
        if now.timeIntervalSince(since) > stallLimit {
          client.stream.close()
          gone.append(ObjectIdentifier(client))
          lock.withLock { dropped += 1 }
        }
        continue
      }
      client.stalledSince = nil
      var bytes: [UInt8]
      if let previousHead, client.lastSent >= previousHead {
        if client.missionID == nil, client.workerID == nil, client.lastSent == previousHead {
          bytes = all
        } else {
          bytes = []
          for event in fresh
          where event.sequence > client.lastSent
            && (client.missionID == nil || client.missionID == event.missionID)
            && (client.workerID == nil || client.workerID == event.workerID)
          {
            bytes.append(contentsOf: event.bytes)
          }
        }
        client.lastSent = max(client.lastSent, currentHead)
      } else {
        let events =
          (try? database.events(
            ofMission: client.missionID, ofWorker: client.workerID,
            afterSequence: client.lastSent, limit: pageSize)) ?? []
        bytes = events.reduce(into: []) { $0.append(contentsOf: EncodedEvent($1).bytes) }
        if let last = events.last { client.lastSent = last.sequence }
        // A client with a filter caught up once its mission has nothing after it.
        if events.count < pageSize { client.lastSent = max(client.lastSent, currentHead) }
        if events.count == pageSize { wake() }
      }
      if bytes.isEmpty {
        if now.timeIntervalSince(client.lastWrite) >= keepaliveInterval {
          client.stream.push(Array(": keepalive\n\n".utf8))
          client.lastWrite = now
        }
        continue
      }
      client.lastWrite = now
      if !client.stream.push(bytes) {
        gone.append(ObjectIdentifier(client))
        lock.withLock { dropped += 1 }
      }
    }
    if !gone.isEmpty {
      let remove = Set(gone)
      lock.withLock { clients.removeAll { remove.contains(ObjectIdentifier($0)) } }
    }
  }
}
