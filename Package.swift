// swift-tools-version:6.0
// MissionTrack: mission geofencing, tracking and proximity queries for Linux.
import PackageDescription

let package = Package(
  name: "MissionTrack",
  products: [
    .library(name: "MissionProximity", targets: ["MissionProximity"]),
    .library(name: "MissionTracking", targets: ["MissionTracking"]),
    .executable(name: "missiontrack", targets: ["missiontrack"]),
  ],
  targets: [
    .systemLibrary(
      name: "CGPS", pkgConfig: "libgps", providers: [.apt(["libgps-dev"])]),
    .systemLibrary(
      name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
    .target(name: "MissionProximity"),
    .target(name: "MissionTracking", dependencies: ["MissionProximity"]),
    .target(name: "TraceFormats", dependencies: ["MissionTracking"]),
    .target(name: "LiveSources", dependencies: ["MissionTracking", "TraceFormats", "CGPS"]),
    .target(name: "MissionStore", dependencies: ["MissionTracking", "CSQLite"]),
    .target(
      name: "MissionTrackCLI",
      dependencies: [
        "MissionProximity", "MissionTracking", "TraceFormats", "LiveSources", "MissionStore",
      ]),
    .executableTarget(name: "missiontrack", dependencies: ["MissionTrackCLI"]),
    .testTarget(
      name: "MissionProximityTests", dependencies: ["MissionProximity"], exclude: ["Fixtures"]),
    .testTarget(name: "MissionTrackingTests", dependencies: ["MissionTracking"]),
    .testTarget(name: "TraceFormatsTests", dependencies: ["TraceFormats"]),
    .testTarget(name: "LiveSourcesTests", dependencies: ["LiveSources", "MissionStore"]),
    .testTarget(name: "MissionStoreTests", dependencies: ["MissionStore"]),
    .testTarget(name: "MissionTrackCLITests", dependencies: ["MissionTrackCLI"]),
  ]
)
