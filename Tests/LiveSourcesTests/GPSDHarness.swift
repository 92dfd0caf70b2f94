import Foundation
import ServiceTestSupport
import Synchronization
import Testing

/// Runs real gpsd instances for the tests, each on a private loopback port and fed from a
/// recorded NMEA log through a one-shot `socat` TCP feeder. Never touches port 2947.
///
/// gpsd runs inside a private SysV IPC namespace (`unshare --ipc`; as root also as user
/// `gpsd` via `setpriv`, otherwise in an unprivileged user namespace): gpsd creates NTP
/// shared-memory segments it never removes, and the namespace takes them away when gpsd
/// exits, so `ipcs -m` stays clean. Every process started here is stopped by
/// `stopAll()` (call it in a `defer`) or at the latest when the harness is released.
final class GPSDHarness {
  struct HarnessError: Error, CustomStringConvertible {
    var description: String
    /// A helper process ended before it listened (its port was taken, say).
    var exitedBeforeListening = false
  }

  static let gpsdPath = "/usr/sbin/gpsd"
  static let socatPath = "/usr/bin/socat"

  /// Whether gpsd and socat are installed (`.enabled(if:)` for the live tests).
  static var isAvailable: Bool {
    FileManager.default.isExecutableFile(atPath: gpsdPath)
      && FileManager.default.isExecutableFile(atPath: socatPath)
  }

  private var processes: [Process] = []
  /// The gpsd started last.
  private(set) var gpsd: Process?
  private let scratch: URL

  init() throws {
    scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
      "gpsd-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
  }

  deinit {
    stopAll()
    try? FileManager.default.removeItem(at: scratch)
  }

  /// Ports handed out in this test run: Linux often returns the port it just freed, so
  /// without this two calls in a row (gpsd's port and its feeder's) can collide.
  private static let handedOut = Mutex<Set<Int>>([])

  /// A TCP port on 127.0.0.1 that nothing uses right now and that this run has not handed
  /// out before (never 2947).
  static func freePort() -> Int {
    while true {
      let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
      precondition(fd >= 0, "socket() failed")
      defer { close(fd) }
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_port = 0
      address.sin_addr.s_addr = inet_addr("127.0.0.1")
      var length = socklen_t(MemoryLayout<sockaddr_in>.size)
      let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
        }
      }
      precondition(bound, "bind() failed")
      let port = Int(UInt16(bigEndian: address.sin_port))
      let fresh = handedOut.withLock { $0.insert(port).inserted }
      if port != 2947, fresh, sockets(localPort: port, state: nil) == 0 { return port }
    }
  }

  /// Writes `text` to a file in the scratch directory and returns it.
  func file(named name: String, contents: Data) throws -> URL {
    let url = scratch.appendingPathComponent(name)
    try contents.write(to: url)
    return url
  }

  /// Serves `file` once, byte for byte, to the first client of `port` (then exits).
  @discardableResult
  func serveOnce(_ file: URL, port: Int) throws -> Process {
    let feeder = try launch(
      GPSDHarness.socatPath,
      ["-u", "FILE:\(file.path)", "TCP-LISTEN:\(port),bind=127.0.0.1,reuseaddr"])
    try waitUntilListening(port: port, what: "socat", while: feeder)
    return feeder
  }

  /// Listens once on `port` and records what the client sends into the returned file; the
  /// client receives nothing.
  func captureOnce(port: Int) throws -> URL {
    let file = scratch.appendingPathComponent("received-\(port).txt")
    let capture = try launch(
      GPSDHarness.socatPath,
      ["-U", "CREATE:\(file.path)", "TCP-LISTEN:\(port),bind=127.0.0.1,reuseaddr"])
    try waitUntilListening(port: port, what: "socat", while: capture)
    return file
  }

  /// Starts gpsd on `port` (read-only, foreground) with a `tcp://` source that feeds `log`.
  /// gpsd reads the source only once a client watches, so nothing is lost before then.
  /// Returns the device path gpsd knows the source by (`tcp://127.0.0.1:FEED`).
  @discardableResult
  func startGPSD(port: Int, feeding log: URL) throws -> String {
    // A free port can be taken before socat binds it (a parallel test's client connection
    // gets it as its local port): socat then exits at once, and another port is tried.
    var attempts = 0
    while true {
      attempts += 1
      let feed = GPSDHarness.freePort()
      do {
        try serveOnce(log, port: feed)
      } catch let error as HarnessError where attempts < 3 && error.exitedBeforeListening {
        continue
      }
      return try startGPSD(port: port, devices: ["tcp://127.0.0.1:\(feed)"])
    }
  }

  /// Starts gpsd on a free port fed the bundled demo walk (`Traces/demo/walk.nmea`);
  /// returns the port.
  func startGPSDWithTheDemoWalk() throws -> Int {
    let port = GPSDHarness.freePort()
    try startGPSD(
      port: port, feeding: TestData.packageRoot.appendingPathComponent("Traces/demo/walk.nmea"))
    return port
  }

  /// Serves `parts` once to the first client of `port`, pausing `pause` seconds between
  /// them (a receiver that falls silent and resumes), then keeps the connection open for
  /// `hold` seconds.
  func servePaced(_ parts: [URL], pause: Double, hold: Double = 0, port: Int) throws {
    let script =
      parts.map { "cat '\($0.path)'" }.joined(separator: "; sleep \(pause); ")
      + "; sleep \(hold)"
    // -U: the data flows from the script to the client, and the script starts only once a
    // client (gpsd) has connected, so the pause falls while gpsd is reading.
    try launch(
      GPSDHarness.socatPath,
      ["-U", "TCP-LISTEN:\(port),bind=127.0.0.1,reuseaddr", "SYSTEM:\(script)"])
    try waitUntilListening(port: port, what: "socat")
  }

  /// The control socket of the gpsd started with `controlSocket: true`.
  var controlSocket: URL { scratch.appendingPathComponent("control/gpsd.sock") }

  /// Starts gpsd on `port` reading `devices` (paths as gpsd takes them); with
  /// `controlSocket`, gpsd also listens on `controlSocket` for `+PATH`/`-PATH` commands.
  @discardableResult
  func startGPSD(port: Int, devices: [String], controlSocket: Bool = false) throws -> String {
    var gpsd = [GPSDHarness.gpsdPath, "-N", "-b", "-S", String(port)]
    if controlSocket {
      let directory = self.controlSocket.deletingLastPathComponent()
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
      // gpsd may run as user gpsd: it must be able to create its socket there.
      chmod(directory.path, 0o777)
      gpsd += ["-F", self.controlSocket.path]
    }
    gpsd += devices
    // Preferred: a private IPC namespace, so gpsd's NTP segments die with it. As root, run
    // gpsd as user gpsd; otherwise inside an unprivileged user namespace (gpsd then fails to
    // drop privileges, says so, and carries on). Last resort: gpsd as is.
    var attempts: [[String]] = []
    if getuid() == 0 {
      attempts.append(
        [
          "/usr/bin/unshare", "--ipc", "/usr/bin/setpriv", "--reuid=gpsd", "--regid=dialout",
          "--clear-groups",
        ] + gpsd)
    } else {
      attempts.append(["/usr/bin/unshare", "--user", "--map-root-user", "--ipc"] + gpsd)
    }
    attempts.append(gpsd)
    var lastError: (any Error)?
    for command in attempts {
      let process = try launch(command[0], Array(command.dropFirst()))
      do {
        try waitUntilListening(port: port, what: "gpsd", while: process)
        if controlSocket { try waitUntilExists(self.controlSocket, while: process) }
        self.gpsd = process
        return devices.first ?? ""
      } catch {
        lastError = error
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
      }
    }
    throw lastError ?? HarnessError(description: "gpsd did not start")
  }

  /// Sends one command (`-PATH` removes a device, `+PATH` adds one) to gpsd's control
  /// socket; returns gpsd's answer (`OK`, `ERROR`).
  @discardableResult
  func control(_ command: String) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: GPSDHarness.socatPath)
    process.arguments = ["-t", "2", "-", "UNIX-CONNECT:\(controlSocket.path)"]
    let input = Pipe()
    let output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.runWithDefaultSignalMask()
    try input.fileHandleForWriting.write(contentsOf: Data((command + "\n").utf8))
    try input.fileHandleForWriting.close()
    let answer = try output.fileHandleForReading.readToEnd() ?? Data()
    process.waitUntilExit()
    return String(decoding: answer, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// Kills the current gpsd with `signal` (default SIGKILL, a crash) and waits for it.
  func killGPSD(signal: Int32 = SIGKILL) {
    guard let gpsd, gpsd.isRunning else { return }
    kill(gpsd.processIdentifier, signal)
    gpsd.waitUntilExit()
  }

  /// Stops every process this harness started: SIGTERM, then SIGKILL after 2 s.
  func stopAll() {
    for process in processes where process.isRunning {
      process.terminate()
    }
    let deadline = Date().addingTimeInterval(2)
    for process in processes {
      while process.isRunning, Date() < deadline { usleep(10_000) }
      if process.isRunning {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
      }
    }
    processes.removeAll()
    gpsd = nil
  }

  @discardableResult
  private func launch(_ path: String, _ arguments: [String]) throws -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.runWithDefaultSignalMask()
    OrphanGuard.watch(process)
    processes.append(process)
    return process
  }

  /// How long a helper process may take to start: a guard against a hang, not a bound
  /// any test checks (a loaded CI machine once took more than 5 s to start socat).
  private static let startupGuard: TimeInterval = 60

  /// Waits up to `startupGuard` for a listener on `port`; gives up early when `process` exits.
  private func waitUntilListening(port: Int, what: String, while process: Process? = nil)
    throws
  {
    let deadline = Date().addingTimeInterval(GPSDHarness.startupGuard)
    while Date() < deadline {
      if GPSDHarness.sockets(localPort: port, state: .listen) > 0 { return }
      if let process, !process.isRunning {
        throw HarnessError(
          description: "\(what) exited before listening on port \(port)",
          exitedBeforeListening: true)
      }
      usleep(10_000)
    }
    throw HarnessError(
      description:
        "\(what) did not listen on 127.0.0.1:\(port) within \(Int(GPSDHarness.startupGuard)) s")
  }

  /// Waits up to `startupGuard` for `file` to exist; gives up early when `process` exits.
  private func waitUntilExists(_ file: URL, while process: Process) throws {
    let deadline = Date().addingTimeInterval(GPSDHarness.startupGuard)
    while Date() < deadline {
      if FileManager.default.fileExists(atPath: file.path) { return }
      if !process.isRunning { break }
      usleep(10_000)
    }
    throw HarnessError(
      description: "gpsd did not create \(file.path) within \(Int(GPSDHarness.startupGuard)) s")
  }

  /// TCP states as `/proc/net/tcp` writes them.
  enum SocketState: String {
    case established = "01"
    case listen = "0A"
  }

  /// How many TCP sockets (IPv4 and IPv6) in `state` have local port `port`. For gpsd's
  /// port and `.established`, that is the number of clients connected to gpsd.
  /// With `state` nil, sockets in any state (TIME_WAIT included) count.
  static func sockets(localPort port: Int, state: SocketState?) -> Int {
    var count = 0
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
      // Not String(contentsOfFile:): it stops after the first read of a /proc file, which
      // holds only the first few dozen sockets.
      guard let handle = FileHandle(forReadingAtPath: table),
        let data = try? handle.readToEnd()
      else { continue }
      try? handle.close()
      let text = String(decoding: data, as: UTF8.self)
      for line in text.split(separator: "\n").dropFirst() {
        let fields = line.split(separator: " ")
        guard fields.count > 3, let colon = fields[1].lastIndex(of: ":"),
          let local = Int(fields[1][fields[1].index(after: colon)...], radix: 16)
        else { continue }
        if local == port, state.map({ fields[3] == $0.rawValue }) ?? true { count += 1 }
      }
    }
    return count
  }

  /// Clients connected to gpsd on `port`.
  static func clients(ofGPSDOn port: Int) -> Int {
    sockets(localPort: port, state: .established)
  }
}
