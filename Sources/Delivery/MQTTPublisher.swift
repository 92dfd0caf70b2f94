import CMosquitto
import Foundation
import Synchronization

/// A publisher to one MQTT broker on libmosquitto: the one file of this package that calls
/// libmosquitto, so no libmosquitto type appears anywhere else.
///
/// libmosquitto's own thread (`mosquitto_loop_start`) runs the connection: it connects,
/// sends, reads acknowledgements and, when the broker goes away, reconnects with a back-off
/// from 1 s doubling to 30 s. The connection carries a last will, `offline` retained on
/// `PREFIX/status`, and each (re)connection publishes `online` retained there.
///
/// `publish` is QoS 1 and returns when the broker's PUBACK arrives. A message published
/// while the broker is away waits in libmosquitto's queue and is sent (again, if it was in
/// flight) after the reconnect: nothing is lost while the process lives, and a message may
/// arrive twice, as QoS 1 allows.
///
/// `@unchecked Sendable`: `mosq` is used through libmosquitto's thread-safe calls
/// (publish, disconnect, loop start/stop), and the waiting publishes are in a `Mutex`.
package final class MQTTPublisher: @unchecked Sendable {
  /// What the callbacks on libmosquitto's thread share with the publishing tasks.
  private final class Shared: Sendable {
    typealias Completion = @Sendable (Result<Void, DeliveryError>) -> Void
    struct Waiting {
      /// Publishes waiting for their PUBACK, by message id.
      var byMessageID: [Int32: Completion] = [:]
      /// PUBACKs that came before their publish registered (libmosquitto's thread can be
      /// faster than the caller between `mosquitto_publish` and the registration).
      var early: Set<Int32> = []
      var connected = false
      var connections = 0
    }
    let waiting = Mutex(Waiting())
    let statusTopic: String
    init(statusTopic: String) { self.statusTopic = statusTopic }
  }

  /// The broker.
  package let broker: MQTTBrokerAddress
  /// The topics (the status topic is the last will's).
  package let topics: MQTTTopics
  private let mosq: OpaquePointer
  private let shared: Shared
  private let context: UnsafeMutableRawPointer
  private let closed = Mutex(false)

  /// libmosquitto's global setup, once per process.
  private static let librarySetup: Int32 = mosquitto_lib_init()

  /// Connects to `broker` as `clientID` and starts libmosquitto's thread. A broker that is
  /// not up yet is retried in the background like a lost one.
  /// - Parameters:
  ///   - keepAliveSeconds: how often the connection is checked when idle.
  ///   - maximumInFlight: QoS 1 messages sent and not yet acknowledged at once; more wait in
  ///     libmosquitto's queue. 100 measured best on a loopback broker (about 30,000
  ///     acknowledged publishes a second); 1,000 was slower, libmosquitto's bookkeeping of
  ///     in-flight messages growing with their number.
  /// - Throws: `DeliveryError.mqtt` when the client cannot be made or the host name does not
  ///   resolve.
  package init(
    broker: MQTTBrokerAddress, clientID: String, topics: MQTTTopics, keepAliveSeconds: Int = 30,
    maximumInFlight: Int = 100
  ) throws(DeliveryError) {
    guard Self.librarySetup == MOSQ_ERR_SUCCESS.rawValue else {
      throw .mqtt("mosquitto_lib_init failed: \(Self.message(Self.librarySetup))")
    }
    self.broker = broker
    self.topics = topics
    let shared = Shared(statusTopic: topics.status)
    self.shared = shared
    context = Unmanaged.passRetained(shared).toOpaque()
    guard let mosq = mosquitto_new(clientID, true, context) else {
      Unmanaged<Shared>.fromOpaque(context).release()
      throw .mqtt("mosquitto_new for \(broker.url) failed (errno \(errno))")
    }
    self.mosq = mosq
    _ = mosquitto_int_option(mosq, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V311)
    _ = mosquitto_int_option(
      mosq, MOSQ_OPT_SEND_MAXIMUM, Int32(max(1, min(maximumInFlight, 65_535))))
    _ = mosquitto_reconnect_delay_set(mosq, 1, 30, true)
    let offline = Array("offline".utf8)
    _ = mosquitto_will_set(mosq, topics.status, Int32(offline.count), offline, 1, true)
    mosquitto_connect_callback_set(mosq) { mosq, context, code in
      guard let context else { return }
      let shared = Unmanaged<Shared>.fromOpaque(context).takeUnretainedValue()
      guard code == 0 else { return }
      shared.waiting.withLock {
        $0.connected = true
        $0.connections += 1
      }
      let online = Array("online".utf8)
      _ = mosquitto_publish(mosq, nil, shared.statusTopic, Int32(online.count), online, 1, true)
    }
    mosquitto_disconnect_callback_set(mosq) { _, context, _ in
      guard let context else { return }
      let shared = Unmanaged<Shared>.fromOpaque(context).takeUnretainedValue()
      shared.waiting.withLock { $0.connected = false }
    }
    mosquitto_publish_callback_set(mosq) { _, context, messageID in
      guard let context else { return }
      let shared = Unmanaged<Shared>.fromOpaque(context).takeUnretainedValue()
      let waiter = shared.waiting.withLock { waiting in
        guard let waiter = waiting.byMessageID.removeValue(forKey: messageID) else {
          waiting.early.insert(messageID)
          return Shared.Completion?.none
        }
        return waiter
      }
      waiter?(.success(()))
    }
    let connect = mosquitto_connect_async(
      mosq, broker.host, Int32(broker.port), Int32(keepAliveSeconds))
    // A refused or unreachable broker is retried by the loop; a name that does not resolve
    // (or another setup error) will never work, so it is reported now.
    // From here every stored property is set, so a throw runs `deinit`, which destroys
    // `mosq` and releases `context`: no cleanup of our own (that freed them twice).
    if connect != MOSQ_ERR_SUCCESS.rawValue && connect != MOSQ_ERR_ERRNO.rawValue {
      throw .mqtt("cannot connect to MQTT broker \(broker.url): \(Self.message(connect))")
    }
    let started = mosquitto_loop_start(mosq)
    guard started == MOSQ_ERR_SUCCESS.rawValue else {
      throw .mqtt("mosquitto_loop_start for \(broker.url) failed: \(Self.message(started))")
    }
  }

  deinit {
    close()
    mosquitto_destroy(mosq)
    Unmanaged<Shared>.fromOpaque(context).release()
  }

  /// Whether the connection is up now.
  package var isConnected: Bool { shared.waiting.withLock { $0.connected } }

  /// How many times a connection was made (1 after the first, 2 after a reconnect, …).
  package var connectionCount: Int { shared.waiting.withLock { $0.connections } }

  /// Publishes `payload` on `topic` at QoS 1 and returns once the broker acknowledged it
  /// (PUBACK). An empty retained payload clears the topic's retained message.
  ///
  /// While the broker is away the message waits in libmosquitto's queue, and this waits
  /// with it. A cancelled task still waits for the PUBACK.
  /// - Throws: `DeliveryError.mqtt` when libmosquitto refuses the message (a topic with a
  ///   wildcard or bad UTF-8, a payload over 256 MB, the publisher closed).
  package func publish(topic: String, payload: [UInt8], retain: Bool) async throws(DeliveryError) {
    let result = await withCheckedContinuation { continuation in
      publish(topic: topic, payload: payload, retain: retain) { continuation.resume(returning: $0) }
    }
    try result.get()
  }

  /// Hands `payload` for `topic` (QoS 1) to libmosquitto now, so messages go out in the
  /// order of these calls, and calls `completion` on the PUBACK (on libmosquitto's thread:
  /// keep it short) or with the refusal (at once, on the caller's thread).
  package func publish(
    topic: String, payload: [UInt8], retain: Bool,
    completion: @escaping @Sendable (Result<Void, DeliveryError>) -> Void
  ) {
    var messageID: Int32 = 0
    let code = mosquitto_publish(
      mosq, &messageID, topic, Int32(clamping: payload.count), payload, 1, retain)
    // NO_CONN: not connected now, but the message is queued with its id and goes out
    // after the reconnect.
    guard code == MOSQ_ERR_SUCCESS.rawValue || code == MOSQ_ERR_NO_CONN.rawValue else {
      completion(
        .failure(.mqtt("MQTT publish to \(topic) on \(broker.url) failed: \(Self.message(code))")))
      return
    }
    let acknowledged = shared.waiting.withLock { waiting in
      if waiting.early.remove(messageID) != nil { return true }
      waiting.byMessageID[messageID] = completion
      return false
    }
    if acknowledged { completion(.success(())) }
  }

  /// Drops the TCP connection without a DISCONNECT, as a crash or a network failure would:
  /// the broker publishes the last will, and the loop reconnects. For tests of the will.
  package func dropConnectionAbruptly() {
    let socket = mosquitto_socket(mosq)
    if socket >= 0 { shutdown(socket, Int32(SHUT_RDWR)) }
  }

  /// Publishes `offline` (retained) on the status topic, disconnects cleanly and stops the
  /// loop; publishes still waiting fail. Safe to call more than once.
  package func close() {
    let first = closed.withLock { closed in
      defer { closed = true }
      return !closed
    }
    guard first else { return }
    if isConnected {
      let offline = Array("offline".utf8)
      var messageID: Int32 = 0
      _ = mosquitto_publish(mosq, &messageID, topics.status, Int32(offline.count), offline, 1, true)
      // Give the PUBACK a moment so the retained `offline` is stored before we go.
      let deadline = Date().addingTimeInterval(2)
      while Date() < deadline,
        shared.waiting.withLock({ $0.early.remove(messageID) == nil && $0.connected })
      {
        usleep(5_000)
      }
    }
    _ = mosquitto_disconnect(mosq)
    _ = mosquitto_loop_stop(mosq, false)
    let waiters = shared.waiting.withLock { waiting in
      defer { waiting.byMessageID.removeAll() }
      return Array(waiting.byMessageID.values)
    }
    for waiter in waiters {
      waiter(.failure(.mqtt("the MQTT publisher for \(broker.url) was closed")))
    }
  }

  /// libmosquitto's text for an error code (errno's text for `MOSQ_ERR_ERRNO`).
  private static func message(_ code: Int32) -> String {
    if code == MOSQ_ERR_ERRNO.rawValue { return String(cString: strerror(errno)) }
    return String(cString: mosquitto_strerror(code))
  }
}
