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
    .target(name: "MissionProximity"),
    .target(name: "MissionTracking", dependencies: ["MissionProximity"]),
    .target(name: "TraceFormats", dependencies: ["MissionProximity", "MissionTracking"]),
    .target(name: "LiveSources", dependencies: ["MissionTracking", "TraceFormats", "CGPS"]),
    .target(name: "MissionStore", dependencies: ["MissionTracking", "CSQLite"]),
    .target(name: "MissionReporting", dependencies: ["MissionProximity", "MissionTracking"]),
    // `missiontrack serve`: the HTTP API, Server-Sent Events and the live map page.
    .target(
      name: "MissionService",
      dependencies: [
        "MissionProximity", "MissionTracking", "TraceFormats", "MissionStore", "MissionReporting",
        "CMicroHTTPD",
      ],
      // The map page's files, compiled into the binary (no file is read at run time).
      resources: [
        .embedInCode("MapPage/index.html"), .embedInCode("MapPage/map.js"),
        .embedInCode("MapPage/map.css"),
      ]),
    .target(
      name: "MissionTrackCLI",
      dependencies: [
        "MissionProximity", "MissionTracking", "TraceFormats", "LiveSources", "MissionStore",
        "MissionReporting", "MissionService",
      ]),
    .executableTarget(name: "missiontrack", dependencies: ["MissionTrackCLI"]),
    // Benchmarks: not part of the shipped `missiontrack`; run with
    // `swift run -c release missiontrack-bench BENCHMARK`.
    .target(
      name: "MissionTrackBenchmarks",
      dependencies: [
        "MissionProximity", "MissionTracking", "TraceFormats", "MissionStore", "MissionTrackCLI",
      ]),
    .executableTarget(name: "missiontrack-bench", dependencies: ["MissionTrackBenchmarks"]),
    .testTarget(
      name: "MissionProximityTests", dependencies: ["MissionProximity"], exclude: ["Fixtures"]),
    .testTarget(name: "MissionTrackingTests", dependencies: ["MissionTracking"]),
    .testTarget(name: "TraceFormatsTests", dependencies: ["TraceFormats"]),
    .testTarget(
      name: "LiveSourcesTests", dependencies: ["LiveSources", "MissionStore", "ServiceTestSupport"]
    ),
    .testTarget(name: "MissionStoreTests", dependencies: ["MissionStore"]),
    // Test helpers shared by the report and CLI tests (an SVG read back with XMLParser).
    .target(name: "SVGTestSupport", path: "Tests/SVGTestSupport"),
    .testTarget(
      name: "MissionReportingTests", dependencies: ["MissionReporting", "SVGTestSupport"]),
    .testTarget(
      name: "MissionTrackCLITests",
      dependencies: ["MissionTrackCLI", "MissionReporting", "SVGTestSupport", "ServiceTestSupport"]
    ),
    .testTarget(name: "MissionTrackBenchmarksTests", dependencies: ["MissionTrackBenchmarks"]),
    // Test helpers for end-to-end tests of `missiontrack serve` (the built binary, raw HTTP).
    .target(name: "ServiceTestSupport", path: "Tests/ServiceTestSupport"),
    .testTarget(
      name: "MissionServiceTests",
      dependencies: [
        "MissionService", "MissionStore", "MissionTracking", "TraceFormats", "ServiceTestSupport",
      ]),
  ]
)
