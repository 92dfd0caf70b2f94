/// The spherical Earth model every distance in MissionTrack uses.
///
/// Distances are great-circle distances on a sphere of the IUGG mean Earth radius
/// R1 = 6,371,008.8 m (Moritz, "Geodetic Reference System 1980", Bulletin Géodésique 54,
/// 1980; R1 = (2a + b) / 3 of the WGS-84/GRS-80 ellipsoid). Against the WGS-84 ellipsoid
/// (Karney's geodesics) the sphere errs by at most about 0.54 % of the distance (median 0.12 %,
/// 99th percentile 0.46 %, over 930 seeded pairs longer than 1 km); see
/// `Tests/MissionProximityTests/Fixtures/README.md`.
public enum Earth {
  /// IUGG mean radius R1 in metres.
  public static let meanRadiusMeters: Double = 6_371_008.8

  /// Half the great-circle circumference (π·R), the largest possible distance, in metres.
  public static let halfCircumferenceMeters: Double = Double.pi * meanRadiusMeters
}
