import Foundation

/// A paid field job at a place, with the geofence that decides arrival.
public struct Mission: Sendable, Hashable, Identifiable {
  /// The default geofence radius in metres.
  public static let defaultGeofenceRadiusMeters: Double = 50

  /// The mission's id, as the import file gave it (numbers are kept as their text).
  public var id: String
  /// A short title for people, e.g. "Photograph the shop front".
  public var title: String
  /// The reward amount in `currency`, as decimal text from the source (e.g. `"350"`).
  public var reward: String?
  /// ISO 4217 currency code of the reward, e.g. `"SEK"`.
  public var currency: String?
  /// Street address for people.
  public var address: String?
  /// Where the job is: the geofence centre.
  public var coordinate: Coordinate
  /// Geofence radius in metres.
  public var geofenceRadiusMeters: Double
  /// When the mission expires if not started, UTC.
  public var deadline: Date?
  /// The lifecycle state.
  public var state: MissionState
  /// The worker who accepted the mission (kept for its history); nil while nobody has.
  /// A mission imported in a later state without one belongs to `Worker.localID`.
  public var workerID: String?

  /// Creates a mission.
  public init(
    id: String, title: String = "", coordinate: Coordinate,
    geofenceRadiusMeters: Double = Mission.defaultGeofenceRadiusMeters,
    reward: String? = nil, currency: String? = nil, address: String? = nil,
    deadline: Date? = nil, state: MissionState = .open, workerID: String? = nil
  ) {
    self.id = id
    self.title = title
    self.coordinate = coordinate
    self.geofenceRadiusMeters = geofenceRadiusMeters
    self.reward = reward
    self.currency = currency
    self.address = address
    self.deadline = deadline
    self.state = state
    self.workerID = workerID
  }
}
