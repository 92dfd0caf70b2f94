import Foundation

/// A private `mosquitto` broker for a test: its own config file in a temporary directory, a
/// free loopback port (never 1883), no persistence unless asked for. `stop()` and `start()`
/// take it away and bring it back on the same port; released, it is stopped.
public final class MosquittoBroker: @unchecked Sendable {
  /// The port it listens on (127.0.0.1).
  public let port: Int
  private let directory: URL
  private let configPath: String
  private var child: ChildProcess?
  private var starts = 0

  /// Whether `mosquitto` and its clients are installed (Debian `mosquitto`,
  /// `mosquitto-clients`).
  public static var isAvailable: Bool {
    FileManager.default.isExecutableFile(atPath: "/usr/sbin/mosquitto")
      && FileManager.default.isExecutableFile(atPath: "/usr/bin/mosquitto_sub")
  }

  /// Writes the config into `directory` and starts the broker. A `persistent` broker keeps
  /// retained messages and the sessions of clients without a clean session (their
  /// subscriptions and queued messages) in `directory` across `stop()` and `start()`, as a
  /// production broker does.
  public init(in directory: URL, persistent: Bool = false) throws {
    self.directory = directory
    port = try Self.freePort()
    configPath = directory.appendingPathComponent("mosquitto.conf").path
    // `user root` keeps a broker started as root from switching to the `mosquitto` user,
    // who could not write the log in the test's directory.
    let userLine = getuid() == 0 ? "user root\n" : ""
    // Its queue per client is unbounded, so a session waiting for its client loses nothing.
    let persistence =
      persistent
      ? "persistence true\npersistence_location \(directory.path)/\nmax_queued_messages 0"
      : "persistence false"
    let config = """
      listener \(port) 127.0.0.1
      allow_anonymous true
      \(persistence)
      log_dest stderr
      \(userLine)
      """
    try config.write(toFile: configPath, atomically: true, encoding: .utf8)
    try start()
  }

  deinit { child?.stop() }

  /// `mqtt://127.0.0.1:PORT`.
  public var url: String { "mqtt://127.0.0.1:\(port)" }

  /// Starts the broker (again) and waits until it accepts connections.
  public func start() throws {
    starts += 1
    let child = try ChildProcess(
      "/usr/sbin/mosquitto", ["-c", configPath], in: directory, tag: "mosquitto-\(starts)")
    self.child = child
    // Generous: only a guard against a broker that never listens.
    let deadline = Date().addingTimeInterval(60)
    while Date() < deadline {
      if Self.accepts(port: port) { return }
      guard child.process.isRunning else {
        throw TestFailure("mosquitto exited: \(child.errors)")
      }
      usleep(20_000)
    }
    throw TestFailure("mosquitto did not listen on \(port) in 60 s: \(child.errors)")
  }

  /// Stops the broker (SIGTERM) and waits for its exit.
  public func stop() {
    child?.stop()
    child = nil
  }

  /// A free loopback TCP port (bound to port 0, then released).
  public static func freePort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw TestFailure("socket() failed") }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
      }
    }
    guard bound else { throw TestFailure("bind to a free port failed") }
    return Int(UInt16(bigEndian: address.sin_port))
  }

  /// Whether something accepts TCP connections on 127.0.0.1:`port`.
  static func accepts(port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    return withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
      }
    }
  }
}
