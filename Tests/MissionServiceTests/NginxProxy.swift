import DeliveryTestSupport
import Foundation
import ServiceTestSupport

/// A private nginx for a test, running the shipped `Tools/nginx-missiontrack.conf` with its
/// node addresses and listen port replaced: one process (`master_process off`), its pid,
/// logs and temporary files in the test's directory, on a free loopback port. Released, it
/// is stopped.
final class NginxProxy {
  /// nginx's path (Debian `nginx-light`).
  static let executable = "/usr/sbin/nginx"
  /// Whether nginx is installed.
  static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: executable) }
  /// The shipped site file.
  static let siteFile = ServeProcess.packageRoot.appendingPathComponent(
    "Tools/nginx-missiontrack.conf"
  ).path

  /// The port it listens on (127.0.0.1).
  let port: Int
  /// The main configuration written for it (which includes the site file as rendered).
  let configPath: String
  private let child: ChildProcess

  /// Writes the configuration with `nodes` (ports on 127.0.0.1) as the upstream servers, in
  /// the shipped file's order, and starts nginx once `nginx -t` passed on it.
  /// - Throws: `TestFailure` when the shipped file does not name as many nodes, the check
  ///   fails (with nginx's own lines) or nginx does not listen.
  init(nodes: [Int], in directory: URL) throws {
    port = try RawHTTP.freeLoopbackPort()
    var site = try String(contentsOfFile: Self.siteFile, encoding: .utf8)
    for (index, node) in nodes.enumerated() {
      site = try Self.replaceOnce("127.0.0.1:\(8081 + index) ", by: "127.0.0.1:\(node) ", in: site)
    }
    site = try Self.replaceOnce("listen 80;", by: "listen 127.0.0.1:\(port);", in: site)
    let sitePath = directory.appendingPathComponent("site.conf").path
    try site.write(toFile: sitePath, atomically: true, encoding: .utf8)
    let temporary = directory.appendingPathComponent("nginx-temp").path
    try FileManager.default.createDirectory(
      atPath: temporary, withIntermediateDirectories: true)
    // As root, nginx would switch to `nobody`, who cannot write in the test's directory.
    let user = getuid() == 0 ? "user root;" : ""
    let main = """
      \(user)
      daemon off;
      master_process off;
      pid \(directory.path)/nginx.pid;
      error_log \(directory.path)/nginx-error.log;
      events { worker_connections 256; }
      http {
        access_log \(directory.path)/nginx-access.log;
        client_body_temp_path \(temporary)/body;
        proxy_temp_path \(temporary)/proxy;
        fastcgi_temp_path \(temporary)/fastcgi;
        uwsgi_temp_path \(temporary)/uwsgi;
        scgi_temp_path \(temporary)/scgi;
        include \(sitePath);
      }
      """
    configPath = directory.appendingPathComponent("nginx.conf").path
    try main.write(toFile: configPath, atomically: true, encoding: .utf8)
    let check = try ServeProcess.run(
      ["-t", "-q", "-c", configPath], in: directory, executable: Self.executable, timeout: 60)
    guard check.status == 0 else {
      throw TestFailure("nginx -t refused the configuration: \(check.err)")
    }
    child = try ChildProcess(Self.executable, ["-c", configPath], in: directory, tag: "nginx")
    // Generous: only a guard against an nginx that never listens.
    let deadline = Date().addingTimeInterval(60)
    while (try? RawHTTP(port: port, timeout: 1)) == nil {
      guard child.process.isRunning, Date() < deadline else {
        throw TestFailure("nginx did not listen on \(port): \(child.errors)")
      }
      usleep(20_000)
    }
  }

  deinit { child.stop() }

  /// `text` with its one `old` replaced by `new`.
  /// - Throws: `TestFailure` unless `old` occurs exactly once (the shipped file changed).
  private static func replaceOnce(_ old: String, by new: String, in text: String) throws
    -> String
  {
    let parts = text.components(separatedBy: old)
    guard parts.count == 2 else {
      throw TestFailure("\(siteFile) has \(parts.count - 1) times '\(old)', expected once")
    }
    return parts.joined(separator: new)
  }
}
