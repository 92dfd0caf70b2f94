extension FenceState {
  /// Where the worker is against a mission's own fence, as `missions show` and
  /// `GET /v1/missions/{id}` both say it: `inside` while the stored state is inside;
  /// `outside` once the mission has a delivered fix and is not inside (a fence never entered
  /// has no stored state, and its fixes were all outside); `unknown` before any fix.
  ///
  /// - Parameters:
  ///   - state: The stored state of the mission's own fence, nil when none is stored.
  ///   - trackFixes: The number of fixes in the mission's track.
  public static func position(_ state: FenceState?, trackFixes: Int) -> String {
    if state?.isInside == true { return "inside" }
    return trackFixes > 0 || state != nil ? "outside" : "unknown"
  }
}
