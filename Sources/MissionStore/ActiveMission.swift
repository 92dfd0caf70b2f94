import Foundation
import MissionTracking

/// What a tracker needs to resume after a restart: the mission being tracked, its geofence
/// state and where the track stopped.
package struct ActiveMission: Sendable, Hashable {
  /// The mission, in state `active` or `arrived`.
  package var mission: Mission
  /// Fence state by fence id (the mission's own fence has the mission's id); fences never
  /// entered are absent (outside).
  package var fences: [String: FenceState]
  /// The last fix of the track, if any: new fixes must be after its time, and the distance
  /// filter continues from it.
  package var lastFix: Fix?
  /// Number of fixes in the track.
  package var trackFixCount: Int

  /// Creates a resume record.
  package init(mission: Mission, fences: [String: FenceState], lastFix: Fix?, trackFixCount: Int) {
    self.mission = mission
    self.fences = fences
    self.lastFix = lastFix
    self.trackFixCount = trackFixCount
  }
}
