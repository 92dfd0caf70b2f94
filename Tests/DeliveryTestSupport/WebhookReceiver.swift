import Foundation

/// The Python webhook receiver (`webhook_receiver.py` beside this file) on a free loopback
/// port, for tests and benchmarks: its paths answer 200, 500, 503 with `Retry-After`, 410,
/// or hang 30 s (see the script), and it logs every request, checking its Standard Webhooks
/// signature when given the secret. Stopped when released.
public final class WebhookReceiver: @unchecked Sendable {
  /// One request as the receiver saw it.
  public struct Request: Sendable {
    public var path: String
    public var body: String
    public var webhookID: String?
    public var timestamp: String?
    public var signature: String?
    /// Whether the signature checked out (nil without a secret).
    public var signatureValid: Bool?
    /// When it arrived (epoch seconds).
    public var time: Double
    /// The client's TCP port: requests with the same one came over one connection.
    public var clientPort: Int
  }

  private let child: ChildProcess
  private let logPath: String
  /// The port it listens on (127.0.0.1).
  public let port: Int

  /// Starts a receiver logging into `directory`, checking signatures with `secret`
  /// (`whsec_…`) when given, speaking HTTPS with `certificate` (PEM files) when given,
  /// served by `processes` Python processes (more only for benchmarks).
  public init(
    in directory: URL, secret: String? = nil,
    certificate: (certFile: String, keyFile: String)? = nil, processes: Int = 1
  ) throws {
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("webhook_receiver.py").path
    logPath = directory.appendingPathComponent("receiver-\(UUID().uuidString).log").path
    child = try ChildProcess(
      environment: ["RECEIVER_PROCESSES": String(processes)],
      "/usr/bin/python3",
      [script, logPath, secret ?? "-"]
        + (certificate.map { [$0.certFile, $0.keyFile] } ?? []), in: directory,
      tag: "receiver-\(UUID().uuidString)")
    // Generous: only a guard against a receiver that never starts.
    let line = try child.waitForOutput(timeout: 60) { $0.hasPrefix("port ") }
    guard let port = Int(line.dropFirst("port ".count)) else {
      throw TestFailure("the webhook receiver printed '\(line)'")
    }
    self.port = port
    isTLS = certificate != nil
  }

  /// `http://127.0.0.1:PORT/PATH` (`https` for a receiver with a certificate).
  public func url(_ path: String) -> String {
    "\(isTLS ? "https" : "http")://127.0.0.1:\(port)\(path)"
  }

  private let isTLS: Bool

  /// Every request so far, in arrival order.
  public var requests: [Request] {
    let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
    return text.split(separator: "\n").compactMap { line in
      guard
        let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
      else { return nil }
      return Request(
        path: object["path"] as? String ?? "", body: object["body"] as? String ?? "",
        webhookID: object["webhook-id"] as? String,
        timestamp: object["webhook-timestamp"] as? String,
        signature: object["webhook-signature"] as? String,
        signatureValid: object["valid"] as? Bool, time: object["time"] as? Double ?? 0,
        clientPort: object["peer"] as? Int ?? 0)
    }
  }

  /// Stops it.
  public func stop() { child.stop() }
}
