/// A person or rig that carries a receiver (DESIGN §7).
///
/// Ids follow the rules of mission ids (`Identifier`). The worker `local` always exists: it
/// is the rig's own receiver, so every one-rig command works without naming a worker.
public struct Worker: Sendable, Hashable, Identifiable {
  /// The id of the rig's own receiver, the worker of every command that names none.
  public static let localID = "local"
  /// The worker's id.
  public var id: String
  /// A name for people, if given.
  public var name: String?
  /// The phones and trackers registered to this worker (DESIGN §8).
  public var devices: [WorkerDevice]

  /// Creates a worker.
  public init(id: String, name: String? = nil, devices: [WorkerDevice] = []) {
    self.id = id
    self.name = name
    self.devices = devices
  }
}
