import Foundation

/// `mosquitto_sub` subscribed to a topic filter of a broker, printing each message as
/// `TOPIC PAYLOAD` (retained ones included) into a file the test reads. Stopped when
/// released.
public final class MosquittoSubscriber: @unchecked Sendable {
  private let child: ChildProcess

  /// Subscribes to `filter` on 127.0.0.1:`port` at QoS 1, and waits until the
  /// subscription is in place (the broker logs it, so we wait on a marker message instead:
  /// `ready` is published to the marker topic until it is seen). Without `cleanSession` its
  /// session outlives a disconnect: a persistent broker queues its messages meanwhile, also
  /// across the broker's restart.
  public init(port: Int, filter: String, in directory: URL, cleanSession: Bool = true) throws {
    let tag = "sub-\(UUID().uuidString)"
    let marker = "missiontrack-test/\(tag)"
    child = try ChildProcess(
      "/usr/bin/mosquitto_sub",
      [
        "-h", "127.0.0.1", "-p", String(port), "-q", "1", "-v", "-t", filter, "-t", marker,
        "-i", tag,
      ] + (cleanSession ? [] : ["-c"]), in: directory, tag: tag)
    let deadline = Date().addingTimeInterval(60)
    while Date() < deadline {
      let publisher = try ChildProcess(
        "/usr/bin/mosquitto_pub",
        ["-h", "127.0.0.1", "-p", String(port), "-t", marker, "-m", "ready"],
        in: directory, tag: "\(tag)-marker")
      publisher.waitForExit(timeout: 5)
      usleep(50_000)
      if lines.contains("\(marker) ready") { return }
    }
    throw TestFailure("mosquitto_sub did not subscribe in 60 s: \(child.errors)")
  }

  /// The messages so far, `TOPIC PAYLOAD` each (marker messages left out).
  public var messages: [String] {
    lines.filter { !$0.hasPrefix("missiontrack-test/") }
  }

  private var lines: [String] { child.output.split(separator: "\n").map(String.init) }

  /// Waits up to `timeout` seconds until `check` holds for the messages.
  @discardableResult
  public func wait(timeout: Double, until check: ([String]) -> Bool) -> [String] {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
      let now = messages
      if check(now) { return now }
      usleep(20_000)
    }
    return messages
  }

  /// Stops it.
  public func stop() { child.stop() }
}
