// swift-tools-version:6.0
// A separate package that uses MissionTrack's library products by path, as another team would.
// Build and run: swift run --package-path Tools/consumer-example
// Its test replays a walk through the engine: swift test --package-path Tools/consumer-example
import PackageDescription

let package = Package(
  name: "consumer-example",
  dependencies: [.package(name: "MissionTrack", path: "../..")],
  targets: [
    .executableTarget(
      name: "consumer-example",
      dependencies: [.product(name: "MissionProximity", package: "MissionTrack")]),
    .testTarget(
      name: "ConsumerTests",
      dependencies: [
        .product(name: "MissionTracking", package: "MissionTrack"),
        .product(name: "TraceFormats", package: "MissionTrack"),
      ]),
  ]
)
