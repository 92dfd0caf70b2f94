import Foundation
import MissionStore
import MissionTracking

/// The Server-Sent Events of `GET /v1/events`: every stored event, in sequence order, to
/// each client, from the store.
///
/// Each client has its own position in the store's event log (the `seq` it was last sent),
/// so a client that connects with `Last-Event-ID` (or `after`) first gets every stored
/// event after it — also events recorded before a daemon restart — and then the live ones,
/// none twice. Events are read from the store, never from memory, so what a client is told
/// is durable. A client is sent a page of events only while it has room; one that has not
/// read its queued events for `stallLimit` is dropped, and tracking never waits for a
/// client. A `: keepalive` comment goes to every client idle for `keepaliveInterval`.
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

  private let database: MissionDatabase
  private let lock = NSLock()
  private var clients: [Client] = []
  private var woken = false
  private var closed = false
  private var dropped = 0
  /// Events per store read for one client.
  let pageSize = 500
  let keepaliveInterval: TimeInterval
  let stallLimit: TimeInterval

  init(
    database: MissionDatabase, keepaliveInterval: TimeInterval = 15, stallLimit: TimeInterval = 5
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

  /// Sends events until `close()`: at once when woken, else at least every `pollInterval`
  /// (events written by other processes).
  func run(pollInterval: Duration = .milliseconds(500)) async {
    var sincePump = Duration.zero
    let tick = Duration.milliseconds(100)
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
      let events =
        (try? database.events(
          ofMission: client.missionID, ofWorker: client.workerID, afterSequence: client.lastSent,
          limit: pageSize)) ?? []
      if events.isEmpty {
        if now.timeIntervalSince(client.lastWrite) >= keepaliveInterval {
          client.stream.push(Array(": keepalive\n\n".utf8))
          client.lastWrite = now
        }
        continue
      }
      var bytes: [UInt8] = []
      for stored in events {
        bytes.append(contentsOf: "id: \(stored.sequence)\nevent: \(stored.event.type)\ndata: ".utf8)
        bytes.append(contentsOf: stored.jsonLine.utf8)
        bytes.append(contentsOf: "\n\n".utf8)
      }
      client.lastSent = events[events.count - 1].sequence
      client.lastWrite = now
      if !client.stream.push(bytes) { gone.append(ObjectIdentifier(client)) }
      if events.count == pageSize { wake() }
    }
    if !gone.isEmpty {
      let remove = Set(gone)
      lock.withLock { clients.removeAll { remove.contains(ObjectIdentifier($0)) } }
    }
  }
}
