import CommandLineSupport
import MissionFiles
import MissionStore
import MissionTracking

/// The flags `replay`, `track` and `serve` share: which worker and mission, and the
/// pipeline's settings.
struct TrackingOptions {
  /// The manual text for these flags.
  static let help = """
      --worker W             The source feeds worker W (default local, the rig's own
                             receiver) and is read only while W has a tracked mission.
                             One process tracks a worker at a time; other workers'
                             trackers run beside it on the same database.
      --mission ID           Track this mission: an accepted (or open) one is started, an
                             active or arrived one is resumed. Default: the mission the
                             worker tracks (active or arrived) in the database.
      --distance-filter M    Deliver a fix when it is at least M metres from the last
                             delivered one (default 10).
      --max-speed MPS        Reject jumps implying more than MPS m/s (default 100).
      --max-accuracy M       Reject fixes whose horizontal accuracy is worse than M metres.
      --dwell S              Report dwell after S seconds inside the fence (default 60).
      --no-other-fences      Evaluate only the mission's own fence, not those of other
                             missions the worker passes.
      --db PATH|URI          The database (default missiontrack.sqlite), or a PostgreSQL
                             URI (postgresql://USER@HOST:PORT/DB).
    """

  /// The worker the source feeds (in NFC).
  var worker: String
  var missionID: String?
  var configuration: MissionEngine.Configuration

  /// Takes the shared flags from `arguments`.
  ///
  /// `live` sources (gpsd, an NMEA device) already hand over one merged fix per epoch, so
  /// the cleaner does not hold each fix back for the next epoch (one epoch less latency).
  /// - Throws: `CLIError.usage` for a bad value.
  init(_ arguments: inout ArgumentList, live: Bool = false) throws {
    worker = try arguments.workerOption()
    missionID = try arguments.option("--mission").map(MissionID.normalized)
    let otherFences = !arguments.flag("--no-other-fences")
    let distance = try arguments.double("--distance-filter", in: 0...1_000_000) ?? 10
    let speed = try arguments.double("--max-speed", in: 0.001...1_000_000) ?? 100
    let accuracy = try arguments.double("--max-accuracy", in: 0.001...1_000_000)
    let dwell = try arguments.double("--dwell", in: 0...1_000_000) ?? 60
    do {
      let pipeline = try TrackingPipeline.Configuration(
        cleaner: FixCleaner.Configuration(
          maximumSpeedMetersPerSecond: speed, maximumHorizontalAccuracyMeters: accuracy,
          mergesEpochs: !live),
        distanceFilterMeters: distance,
        geofence: GeofenceEvaluator.Configuration(dwellSeconds: dwell))
      configuration = MissionEngine.Configuration(
        pipeline: pipeline, evaluatesOtherFences: otherFences)
    } catch {
      throw CLIError.usage("\(error)")
    }
  }
}
