import CommandLineSupport
import Foundation
import MissionService
import MissionStore
import MissionTracking
import PostgresStore
import TraceFormats

/// `missiontrack serve`: the database's engine behind the HTTP API of DESIGN.md §5.
enum ServeCommand: Command {
  static let name = "serve"
  static let summary = "Serve the HTTP API, live events and the map page; track active missions"
  static let defaultListen = "127.0.0.1:8947"
  /// How often the engine reads the change log on PostgreSQL without a `NOTIFY`.
  static let postgresPollInterval = Duration.seconds(5)
  static let help = """
    NAME
      missiontrack serve - the location service other programs talk to

    SYNOPSIS
      missiontrack serve [--db PATH|URI] [--listen HOST:PORT] [--token-file PATH]
                         [--gpsd HOST:PORT [--device PATH] | --nmea PATH [--baud N]
                          | --replay TRACE... [--speed X]] [...]

    DESCRIPTION
      Serves the missions of the database over HTTP (JSON under /v1, Server-Sent Events at
      /v1/events, the live map page at /, /healthz and /metrics) and tracks whichever
      mission becomes active, by the API or by a 'missiontrack missions start' on the same
      database. The source is opened only while a mission is active or arrived and closed
      within 1 s of its submit, cancel or expiry; with no mission active there is no
      connection to gpsd and no open device. With --replay the trace is the receiver: it
      is read from its start each time a mission becomes active.

      What a web page elsewhere could make a browser send is refused (403): on a loopback
      address without --token-file, a request whose Host is not loopback (DNS rebinding);
      and a POST, PUT or DELETE whose Origin is neither the service itself nor
      --cors-origin (request forgery).

      Prints 'serving on http://HOST:PORT' on standard error when ready (with port 0, the
      port the system picked). SIGINT and SIGTERM stop it cleanly within 2 s: open event
      streams end, a write still running after 0.25 s (a large import) is rolled back and
      answered 503, the held-back fix is recorded, the source is closed, exit 0. Under
      systemd (Type=notify) it sends READY=1 when serving and WATCHDOG=1 while /healthz
      passes.

    OPTIONS
      --listen HOST:PORT     Address to listen on (default \(defaultListen)); a numeric
                             IPv4 or IPv6 address ([::1]:8947); port 0 picks a free one.
                             Any address but loopback needs --token-file.
      --token-file PATH      Every request but /healthz needs 'Authorization: Bearer TOKEN'
                             with the file's first line as TOKEN (at least 16 characters).
      --cors-origin ORIGIN   Allow browser pages from ORIGIN (SCHEME://HOST[:PORT], as a
                             browser sends it) to call the API (no CORS headers without it).
      --idle-timeout S       Close a connection idle for S seconds, also one that stalls
                             mid-request (default 30).
      --header-timeout S     Close a connection whose request line and headers are not all
                             in S seconds after it opened, or after the previous answer on
                             a kept-alive connection (then at least the idle timeout;
                             default 10).
      --sse-keepalive S      Send an idle event stream a ': keepalive' comment every S
                             seconds (default 15), so proxies keep it open.
      --connections-per-address N
                             Refuse connections from one client address beyond N at once
                             (default 64 on an address that is not loopback, none on
                             loopback, where a local proxy's clients all share one).
      --source-down-limit S  /healthz fails once the source has been down S seconds while
                             tracking (default 30), whatever the reason; a source that
                             cannot be opened (a directory) is retried meanwhile.
      --replay TRACE...      Replay these traces (GPX, NMEA, gpsd JSON) as the receiver.
      --speed X              With --replay: pace fixes at X times real time (default: as
                             fast as possible).
    \(LiveSourceOptions.help)
      --worker W             The source (--gpsd, --nmea, --replay) feeds worker W (default
                             local) and is opened only while W has a tracked mission; one
                             process tracks a worker at a time.
      --distance-filter M, --max-speed MPS, --max-accuracy M, --dwell S, --no-other-fences
                             As for 'missiontrack track'.
      --db PATH|URI          The database (default missiontrack.sqlite; created if missing),
                             or a PostgreSQL URI (postgresql://USER@HOST:PORT/DB): several
                             serve nodes on one database follow each other's changes
                             within 1 s and share the webhook and MQTT delivery.
      --webhook URL [--webhook-secret-file F]
                             POST every event to URL, signed as Standard Webhooks with the
                             secret in F (whsec_…; without F one is made and printed once
                             on stderr). Repeatable; stored, so a restart resumes where
                             the receiver stopped. See also /v1/webhooks.
      --mqtt mqtt://HOST:PORT
                             Publish events, mission state and worker positions to this
                             MQTT broker at QoS 1 (topics under --mqtt-prefix, default
                             missiontrack).

    EXIT STATUS
      0 stopped by SIGINT or SIGTERM, 1 runtime error (address in use, the worker tracked
      by another process), 64 usage error.

    EXAMPLES
      missiontrack serve --db field.sqlite --gpsd 127.0.0.1:2947
      missiontrack serve --listen 0.0.0.0:8947 --token-file /etc/missiontrack/token
      missiontrack serve --replay Traces/demo/walk.gpx --speed 10
      curl 'http://127.0.0.1:8947/v1/missions?lat=59.6175&lon=17.7230&radius_m=500'
    """

  static func run(_ arguments: inout ArgumentList, console: Console) async throws -> Int32 {
    let databaseOption = try DatabaseOption(&arguments)
    let options = try TrackingOptions(&arguments, live: true)
    if options.missionID != nil {
      throw CLIError.usage(
        "serve tracks whichever mission becomes active: start one with POST /v1/missions/ID/start")
    }
    var configuration = ServiceConfiguration()
    configuration.version = MissionTrackTool.version
    let listen = try arguments.option("--listen") ?? defaultListen
    (configuration.host, configuration.port) = try parseListen(listen)
    let tokenFile = try arguments.option("--token-file")
    configuration.corsOrigin = try arguments.option("--cors-origin")
    if let origin = configuration.corsOrigin, !isOrigin(origin) {
      throw CLIError.usage(
        "--cors-origin expects SCHEME://HOST[:PORT] (an origin, no path), got "
          + "'\(origin.terminalSafe)'")
    }
    if let idle = try arguments.int("--idle-timeout", in: 1...86_400) {
      configuration.idleTimeoutSeconds = idle
    }
    if let headers = try arguments.int("--header-timeout", in: 1...86_400) {
      configuration.headerTimeoutSeconds = headers
    }
    if let keepalive = try arguments.double("--sse-keepalive", in: 0.1...3600) {
      configuration.keepaliveSeconds = keepalive
    }
    let perAddress = try arguments.int("--connections-per-address", in: 1...100_000)
    configuration.sourceDownLimitSeconds =
      try arguments.double("--source-down-limit", in: 0.1...86_400) ?? 30
    for (url, secretFile) in try arguments.optionGroups(
      "--webhook", followedBy: "--webhook-secret-file")
    {
      configuration.outbox.webhooks.append(
        .init(url: url, secret: try secretFile.map(WorkersCommand.readSecret)))
    }
    configuration.outbox.mqttBroker = try arguments.option("--mqtt")
    if let prefix = try arguments.option("--mqtt-prefix") {
      configuration.outbox.mqttPrefix = prefix
    }
    // Tests only (documented in OutboxConfiguration): a shorter webhook retry schedule.
    if let text = ProcessInfo.processInfo.environment["MISSIONTRACK_RETRY_TIME_SCALE"],
      let scale = Double(text), scale > 0, scale <= 1
    {
      configuration.outbox.retryTimeScale = scale
    }
    let speed = try arguments.double("--speed", in: 0.0001...1_000_000)
    let replays = try arguments.options("--replay")
    let live = try LiveSourceOptions(&arguments)
    let extra = try arguments.positionals()
    let traces = replays + extra
    if !extra.isEmpty && replays.isEmpty {
      throw CLIError.usage("unexpected argument '\(extra[0].terminalSafe)'")
    }
    if !traces.isEmpty && live.isGiven {
      throw CLIError.usage("--replay excludes --gpsd, --device, --nmea and --baud")
    }
    if speed != nil && traces.isEmpty { throw CLIError.usage("--speed goes with --replay") }
    if tokenFile == nil && !configuration.listensOnLoopback {
      throw CLIError.usage(
        "listening on \(configuration.host) (not loopback) needs --token-file PATH")
    }
    configuration.connectionsPerAddress =
      perAddress ?? (configuration.listensOnLoopback ? 0 : 64)
    if let tokenFile { configuration.token = try readToken(tokenFile) }
    for path in traces where !FileManager.default.isReadableFile(atPath: path) {
      throw CLIError.failure("cannot read trace \(path.terminalSafe)")
    }
    let source: any FixSource
    if traces.isEmpty {
      // A service keeps trying a source it cannot use until the operator fixes it (while
      // /healthz fails), where `track` fails at once.
      source = try live.source(retryingUnusable: true)
      (configuration.sourceKind, configuration.sourceDetail) = live.description
    } else {
      let pacing: TraceReplaySource.Pacing = speed.map { .realTime(speed: $0) } ?? .asFastAsPossible
      source = ChainedFixSource(sources: traces.map { TraceReplaySource(path: $0, pacing: pacing) })
      configuration.sourceKind = "replay"
      configuration.sourceDetail = traces.joined(separator: " ")
    }
    // A fleet holds a tracking lease (an open lock file) per phone-fed worker besides its
    // connections: the soft descriptor limit (often 1,024) is raised to the hard one.
    var files = rlimit()
    if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &files) == 0, files.rlim_cur < files.rlim_max {
      files.rlim_cur = files.rlim_max
      _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &files)
    }
    // Clients of `serve` (SSE, webhooks, MQTT) are told only committed events: a 20 ms group
    // commit keeps a fix's way to them short (at most 50 fsyncs a second).
    let database = try databaseOption.openService(
      groupCommit: GroupCommitPolicy(maxDelay: .milliseconds(20)))
    try await databaseOption.expireDue(database)
    let worker = options.worker
    // `/v1/status`, `/healthz` and the source metrics describe the worker the source feeds.
    configuration.sourceWorker = worker
    let lease = try CLIError.runtime {
      try database.claimTracking(holder: "missiontrack serve", worker: worker)
    }
    defer { lease.release() }
    var engineConfiguration = options.configuration
    // On PostgreSQL another node's change wakes the engine through `NOTIFY` (below); the
    // poll only backs it up.
    let changeWaiter = databaseOption.postgresURI.map { PostgresChangeWaiter(uri: $0) }
    if changeWaiter != nil { engineConfiguration.changePollInterval = Self.postgresPollInterval }
    defer { changeWaiter?.stop() }
    let engine = MissionEngine(
      store: database, sources: { $0 == worker ? source : nil }, clock: WallClock(),
      configuration: engineConfiguration)
    // The outbox's reports go through the console, like every other line `serve` prints.
    configuration.outbox.report = { console.err("missiontrack serve: " + $0) }
    let service = MissionService(database: database, engine: engine, configuration: configuration)
    let stopSignal = Task { await terminationReason(console: console, verb: "serve") }
    // `stopSignal` runs only once a cooperative thread is free, and during a long import
    // every one may wait for the database the import holds (the event hub, housekeeping):
    // the import is rolled back from a dispatch thread as the signal arrives.
    let writesStopper = [SIGINT, SIGTERM].map { number in
      let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
      source.setEventHandler { service.stopWrites() }
      source.resume()
      return source
    }
    defer { for source in writesStopper { source.cancel() } }
    do {
      try await engine.open()
      let url = try service.start()
      console.err("serving on \(url)")
      console.flush()
    } catch {
      stopSignal.cancel()
      await service.stop(reason: nil)
      throw CLIError.failure("\(error)")
    }
    // Other nodes' changes reach the grid as SQLite's other processes' do: by the engine's
    // look at the store's changes, here at every wake-up of the change waiter (each
    // `NOTIFY`, and each reconnection, which catches up from the change log).
    let follower = changeWaiter.map { waiter in
      Task {
        for await _ in waiter.wakeUps { await engine.synchronize() }
      }
    }
    defer { follower?.cancel() }
    let notifier = SystemdNotifier.fromEnvironment()
    notifier?.send("READY=1\nSTATUS=serving")
    let housekeeping = Task {
      var sinceWatchdog = Duration.zero
      while !Task.isCancelled {
        try? await Task.sleep(for: .milliseconds(500))
        _ = try? await engine.expireDue()
        sinceWatchdog += .milliseconds(500)
        if let notifier, let interval = notifier.watchdogInterval, sinceWatchdog >= interval / 2 {
          sinceWatchdog = .zero
          if service.healthProblem() == nil { notifier.send("WATCHDOG=1") }
        }
      }
    }
    let reason = await stopSignal.value
    notifier?.send("STOPPING=1")
    housekeeping.cancel()
    await service.stop(reason: reason)
    await housekeeping.value
    if let failure = await engine.failure {
      console.err("serve: \(failure)")
    }
    return 0
  }

  /// HOST and PORT of `--listen HOST:PORT` (`[V6]:PORT` for IPv6).
  static func parseListen(_ text: String) throws(CLIError) -> (String, UInt16) {
    let usage = CLIError.usage(
      "--listen expects HOST:PORT with a numeric address, got '\(text.terminalSafe)'")
    var host: Substring
    var port: Substring
    if text.hasPrefix("[") {
      guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":")
      else { throw usage }
      host = text[text.index(after: text.startIndex)..<close]
      port = text[text.index(close, offsetBy: 2)...]
    } else {
      guard let colon = text.lastIndex(of: ":") else { throw usage }
      host = text[..<colon]
      port = text[text.index(after: colon)...]
    }
    if host == "localhost" { host = "127.0.0.1" }
    guard !host.isEmpty, let number = UInt16(port), isNumericAddress(String(host)) else {
      throw usage
    }
    return (String(host), number)
  }

  /// Whether `host` is a numeric IPv4 or IPv6 address: a name would otherwise pass as
  /// "not loopback" and fail only when the server starts (exit 1, not 64).
  static func isNumericAddress(_ host: String) -> Bool {
    var address = in6_addr()
    return inet_pton(AF_INET, host, &address) == 1 || inet_pton(AF_INET6, host, &address) == 1
  }

  /// Whether `text` is an origin as a browser sends it in `Origin` (RFC 6454):
  /// `SCHEME://HOST[:PORT]`, ASCII, no path. Anything else would never match a browser's
  /// `Origin`, and a control character would go out in every response's headers.
  static func isOrigin(_ text: String) -> Bool {
    func isASCII(_ characters: Substring, _ allowed: (Character) -> Bool) -> Bool {
      !characters.isEmpty && characters.allSatisfy { $0.isASCII && allowed($0) }
    }
    guard let separator = text.range(of: "://") else { return false }
    let scheme = text[..<separator.lowerBound]
    var host = text[separator.upperBound...]
    guard scheme.first?.isLetter == true,
      isASCII(scheme, { $0.isLetter || $0.isNumber || "+-.".contains($0) })
    else { return false }
    if let colon = host.lastIndex(of: ":"), !host.hasSuffix("]") {
      let port = host[host.index(after: colon)...]
      guard port.count <= 5, isASCII(port, \.isNumber), let number = Int(port), number <= 65_535
      else { return false }
      host = host[..<colon]
    }
    if host.hasPrefix("["), host.hasSuffix("]") {
      return isASCII(host.dropFirst().dropLast(), { $0.isHexDigit || $0 == ":" || $0 == "." })
    }
    return isASCII(host, { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." })
  }

  /// The token in `path`: its first line, trimmed; at least 16 characters.
  static func readToken(_ path: String) throws(CLIError) -> String {
    guard let data = FileManager.default.contents(atPath: path),
      let text = String(data: data, encoding: .utf8)
    else {
      throw .failure("cannot read token file \(path.terminalSafe)")
    }
    let token = (text.split(whereSeparator: \.isNewline).first.map(String.init) ?? "")
      .trimmingCharacters(in: .whitespaces)
    guard token.count >= 16 else {
      throw .usage("the token in \(path.terminalSafe) must be at least 16 characters")
    }
    guard token.allSatisfy({ $0.isASCII && !$0.isWhitespace && $0 != "," }) else {
      throw .usage("the token in \(path.terminalSafe) must be printable ASCII without spaces")
    }
    return token
  }
}
