// swift-tools-version:6.0
// MissionTrack: mission geofencing, tracking and proximity queries for Linux.
import PackageDescription

let package = Package(
  name: "MissionTrack",
  products: [
    .library(name: "MissionProximity", targets: ["MissionProximity"]),
    .library(name: "MissionTracking", targets: ["MissionTracking"]),
    .library(name: "TraceFormats", targets: ["TraceFormats"]),
    .executable(name: "missiontrack", targets: ["missiontrack"]),
    .executable(name: "missiontrack-bench", targets: ["missiontrack-bench"]),
  ],
  targets: [
    .systemLibrary(
      name: "CGPS", pkgConfig: "libgps", providers: [.apt(["libgps-dev"])]),
    .systemLibrary(
      name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
    .systemLibrary(
      name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
    .systemLibrary(
      name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
    .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
    .systemLibrary(
      name: "CMosquitto", pkgConfig: "libmosquitto", providers: [.apt(["libmosquitto-dev"])]),
    .systemLibrary(name: "CLibpq", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
    // The shared text rules every reader and writer calls, decided once: decimal numbers
    // (`DecimalText`, `Double(decimalText:)`), the line-numbered JSON reader and the gpsd
    // line scanner, JSON writing, RFC 3339 time, XML escaping, one-line error values.
    // Internal to the package (not a product); its declarations are `package`.
    .target(name: "TextRules"),
    .target(name: "MissionProximity"),
    .target(name: "MissionTracking", dependencies: ["MissionProximity", "TextRules"]),
    .target(
      name: "TraceFormats", dependencies: ["MissionProximity", "MissionTracking", "TextRules"]),
    .target(name: "LiveSources", dependencies: ["MissionTracking", "TraceFormats", "CGPS"]),
    // Mission files (CSV, JSON, GeoJSON) read into validated records: pure, no SQLite, so
    // the fuzzer (Tools/fuzz/run-missions) builds this module as it is.
    .target(name: "MissionFiles", dependencies: ["MissionTracking", "TextRules"]),
    // Phones and trackers as receivers (DESIGN §8): one pure decoder per protocol (OwnTracks,
    // OsmAnd / Traccar Client, Overland, our fix lines) and the replies their clients expect.
    // No I/O, so the fuzzer (Tools/fuzz/run-ingest) builds this module as it is.
    .target(name: "Ingest", dependencies: ["MissionTracking", "TextRules"]),
    // What the commands that import and read missions ask of a store
    // (`MissionCatalogStore`), met by SQLite and PostgreSQL alike.
    .target(
      name: "MissionCatalog", dependencies: ["MissionFiles", "MissionTracking", "TextRules"]),
    // Persistence: SQLite, the schema, imports of the records MissionFiles reads.
    .target(
      name: "MissionStore",
      dependencies: ["MissionCatalog", "MissionFiles", "MissionTracking", "TextRules", "CSQLite"]),
    // Events out: signed webhooks (libcurl, HMAC from libcrypto) and MQTT (libmosquitto),
    // and the pure dispatch rules (retry schedule, per-mission order) the outbox runs.
    .target(
      name: "Delivery", dependencies: ["CCurl", "CCrypto", "CMosquitto"]),
    // Persistence on PostgreSQL + PostGIS (DESIGN §10): the same store contract, libpq
    // wrapped once (`PostgresConnection`).
    .target(
      name: "PostgresStore",
      dependencies: ["MissionCatalog", "MissionFiles", "MissionTracking", "TextRules", "CLibpq"]),
    .target(
      name: "MissionReporting", dependencies: ["MissionProximity", "MissionTracking", "TextRules"]),
    // `missiontrack serve`: the HTTP API, Server-Sent Events and the live map page.
    .target(
      name: "MissionService",
      dependencies: [
        "MissionProximity", "MissionTracking", "TraceFormats", "MissionFiles", "MissionCatalog",
        "MissionStore", "MissionReporting", "Ingest", "TextRules", "CMicroHTTPD", "Delivery",
      ],
      // The map page's files, compiled into the binary (no file is read at run time).
      resources: [
        .embedInCode("MapPage/index.html"), .embedInCode("MapPage/map.js"),
        .embedInCode("MapPage/map.css"),
      ]),
    // Command-line plumbing shared by `missiontrack` and `missiontrack-bench`: options
    // (`ArgumentList`), output (`Console`) and exit statuses (`CLIError`).
    .target(name: "CommandLineSupport", dependencies: ["TextRules"]),
    // The `missiontrack` commands.
    .target(
      name: "MissionTrackCLI",
      dependencies: [
        "CommandLineSupport", "MissionProximity", "MissionTracking", "TraceFormats",
        "LiveSources", "MissionFiles", "MissionCatalog", "MissionStore", "PostgresStore",
        "MissionReporting", "MissionService", "TextRules",
      ]),
    .executableTarget(name: "missiontrack", dependencies: ["MissionTrackCLI"]),
    // Benchmarks: not part of the shipped `missiontrack` (no HTTP server, no libgps); run
    // with `swift run -c release missiontrack-bench BENCHMARK`.
    .target(
      name: "MissionTrackBenchmarks",
      dependencies: [
        "CommandLineSupport", "MissionProximity", "MissionTracking", "TraceFormats",
        "MissionFiles", "MissionStore", "PostgresStore", "TextRules", "Ingest",
      ]),
    .executableTarget(name: "missiontrack-bench", dependencies: ["MissionTrackBenchmarks"]),
    .testTarget(name: "TextRulesTests", dependencies: ["TextRules", "MissionProximity"]),
    .testTarget(
      name: "MissionProximityTests", dependencies: ["MissionProximity"], exclude: ["Fixtures"]),
    .testTarget(name: "MissionTrackingTests", dependencies: ["MissionTracking", "TextRules"]),
    .testTarget(name: "TraceFormatsTests", dependencies: ["TraceFormats", "TextRules"]),
    .testTarget(
      name: "LiveSourcesTests",
      dependencies: ["LiveSources", "MissionStore", "ServiceTestSupport", "TextRules"]),
    .testTarget(name: "MissionFilesTests", dependencies: ["MissionFiles", "TextRules"]),
    .testTarget(
      name: "IngestTests", dependencies: ["Ingest", "MissionTracking", "TraceFormats", "TextRules"]),
    .testTarget(
      name: "MissionStoreTests", dependencies: ["MissionStore", "MissionFiles", "TextRules"]),
    // Test helpers shared by the report and CLI tests (an SVG read back with XMLParser).
    .target(name: "SVGTestSupport", path: "Tests/SVGTestSupport"),
    .testTarget(
      name: "MissionReportingTests", dependencies: ["MissionReporting", "SVGTestSupport"]),
    .testTarget(
      name: "MissionTrackCLITests",
      dependencies: [
        "MissionTrackCLI", "CommandLineSupport", "MissionReporting", "SVGTestSupport",
        "ServiceTestSupport", "PostgresTestSupport", "TextRules",
      ]),
    .testTarget(
      name: "MissionTrackBenchmarksTests",
      dependencies: ["MissionTrackBenchmarks", "CommandLineSupport"]),
    // Test helpers for end-to-end tests of `missiontrack serve` (the built binary, raw HTTP).
    .target(name: "ServiceTestSupport", path: "Tests/ServiceTestSupport"),
    // Real receivers for the delivery tests: a Python webhook server and a private mosquitto.
    .target(
      name: "DeliveryTestSupport", dependencies: ["ServiceTestSupport"],
      path: "Tests/DeliveryTestSupport", exclude: ["webhook_receiver.py"]),
    .testTarget(
      name: "DeliveryTests", dependencies: ["Delivery", "DeliveryTestSupport", "MissionProximity"]),
    // A private PostgreSQL cluster for tests (never the system one).
    .target(
      name: "PostgresTestSupport", dependencies: ["ServiceTestSupport"],
      path: "Tests/PostgresTestSupport"),
    .testTarget(
      name: "PostgresStoreTests",
      dependencies: [
        "PostgresStore", "PostgresTestSupport", "MissionStore", "MissionFiles", "MissionTracking",
      ]),
    .testTarget(
      name: "MissionServiceTests",
      dependencies: [
        "MissionService", "MissionCatalog", "MissionStore", "MissionTracking", "TraceFormats",
        "ServiceTestSupport", "DeliveryTestSupport", "PostgresTestSupport",
      ]),
  ]
)
