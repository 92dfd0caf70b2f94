import PostgresTestSupport
import ServiceTestSupport
import Testing

extension Trait where Self == ConditionTrait {
  /// The built `missiontrack` binary is there (the suite is skipped, saying why, when not).
  static var binaryBuilt: Self {
    .enabled(if: BuiltTool.isBuilt, "missiontrack binary not built (run swift build)")
  }

  /// PostgreSQL 15 and PostGIS 3 are installed, for `PostgresTestCluster` (the suite is
  /// skipped, saying why, when not).
  static var postgresInstalled: Self {
    .enabled(
      if: PostgresTestCluster.isAvailable,
      "PostgreSQL 15 + PostGIS 3 are not installed (Tools/setup): PostgreSQL tests skipped")
  }
}
