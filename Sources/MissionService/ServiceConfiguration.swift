import MissionTracking

/// Settings of `MissionService`: where it listens, who may call it, its limits.
package struct ServiceConfiguration: Sendable {
  /// The address to listen on (numeric IPv4 or IPv6; default loopback).
  package var host = "127.0.0.1"
  /// The port (0 picks a free one; default 8947).
  package var port: UInt16 = 8947
  /// When set, every request but `/healthz` needs `Authorization: Bearer TOKEN`.
  package var token: String?
  /// When set, responses allow this origin (CORS); none by default.
  package var corsOrigin: String?
  /// Connection, body and header limits.
  var limits = HTTPServer.Limits()
  /// An event stream idle this long gets a `: keepalive` comment, seconds (DESIGN §5: 15).
  package var keepaliveSeconds: Double = 15
  /// While tracking, `/healthz` fails once the source has been down this long, seconds.
  package var sourceDownLimitSeconds: Double = 30
  /// What `/v1/status` calls the source (`gpsd`, `nmea`, `replay`) and its address.
  package var sourceKind = "none"
  package var sourceDetail = ""
  /// The worker the configured source feeds (`serve --worker W`, default `local`): its
  /// tracked mission gates the source, and `/v1/status`, `/healthz` and the source metrics
  /// describe it.
  package var sourceWorker = Worker.localID
  /// Webhooks and MQTT (DESIGN §9).
  package var outbox = OutboxConfiguration()
  /// The version `/v1/status` reports.
  package var version = "0"

  /// Defaults: loopback port 8947, no token, no CORS.
  package init() {}

  /// Idle time after which a connection (also one mid-request) is closed, seconds.
  package var idleTimeoutSeconds: Int {
    get { limits.idleTimeoutSeconds }
    set { limits.idleTimeoutSeconds = newValue }
  }

  /// A request's line and headers must be in within this many seconds of its connection's
  /// opening (of the previous answer on a kept-alive one), else it is closed.
  package var headerTimeoutSeconds: Int {
    get { limits.headerTimeoutSeconds }
    set { limits.headerTimeoutSeconds = newValue }
  }

  /// Most connections from one client address at once; 0 (the default) for no limit.
  package var connectionsPerAddress: Int {
    get { limits.connectionsPerAddress }
    set { limits.connectionsPerAddress = newValue }
  }

  /// Whether `host` is a loopback address (127.0.0.0/8 or ::1).
  package var listensOnLoopback: Bool {
    // The one loopback rule (`HostHeader`): the address as a Host header would name it.
    HostHeader(host.contains(":") ? "[\(host)]" : host)?.isLoopback == true
  }
}
