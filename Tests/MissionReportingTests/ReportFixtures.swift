import Foundation
import MissionTracking

@testable import MissionReporting

/// Synthetic missions and tracks for the report tests.
enum ReportFixtures {
  static let t0 = Date(timeIntervalSince1970: 1_714_557_600)  // 2024-05-01T10:00:00Z
  static let uppsala = try! Coordinate(latitude: 59.8586, longitude: 17.6389)

  static func mission(
    id: String = "M-7", title: String = "Photograph the shop front",
    at coordinate: Coordinate = uppsala, radius: Double = 50, state: MissionState = .arrived
  ) -> Mission {
    Mission(
      id: id, title: title, coordinate: coordinate, geofenceRadiusMeters: radius, reward: "350",
      currency: "SEK", address: "Svartbäcksgatan 12, Uppsala", state: state)
  }

  static func fix(_ coordinate: Coordinate, _ seconds: Double) -> Fix {
    Fix(
      time: t0.addingTimeInterval(seconds), coordinate: coordinate, source: "test",
      horizontalAccuracyMeters: 5)
  }

  /// `origin` moved `meters` along `bearing`.
  static func offset(_ origin: Coordinate, _ bearing: Double, _ meters: Double) -> Coordinate {
    try! origin.destination(bearingDegrees: bearing, distanceMeters: meters)
  }

  /// A worker walks ~600 m to the mission, enters, stands long enough to dwell, walks out,
  /// loses the GPS for three minutes, then cycles back past the fence so fast that no fix
  /// lands inside (a `crossed`). Raw fixes every 2 s go through a small model of the fence
  /// rules (enter ≤ r, exit > r + margin, dwell after 120 s, crossed by segment) and of the
  /// 10 m distance filter, like the tracker's output.
  static func walkingReport(seed: UInt64 = 7) -> MissionReport {
    let mission = mission()
    let center = mission.coordinate
    var random = SplitMix64(seed: seed)
    func jitter(_ c: Coordinate, _ meters: Double) -> Coordinate {
      offset(
        c, Double.random(in: 0..<360, using: &random), Double.random(in: 0...meters, using: &random)
      )
    }
    var raw: [Fix] = []
    var clock = 0.0
    var position = offset(center, 215, 560)
    func walk(to target: Coordinate, speed: Double, every interval: Double = 2, record: Bool = true)
    {
      while position.distance(to: target) > speed * interval {
        position = offset(position, position.initialBearingDegrees(to: target), speed * interval)
        clock += interval
        if record { raw.append(fix(jitter(position, 1.5), clock)) }
      }
      position = target
      clock += interval
      if record { raw.append(fix(jitter(position, 1.5), clock)) }
    }
    walk(to: offset(center, 250, 300), speed: 1.4)
    walk(to: offset(center, 290, 120), speed: 1.3)
    walk(to: offset(center, 200, 8), speed: 1.2)
    for _ in 0..<120 {  // four minutes standing at the shop front
      clock += 2
      raw.append(fix(jitter(position, 4), clock))
    }
    walk(to: offset(center, 60, 160), speed: 1.5)
    walk(to: offset(center, 20, 330), speed: 1.5)
    walk(to: offset(center, 80, 420), speed: 1.5, record: false)  // GPS lost
    clock += 60
    walk(to: offset(center, 110, 380), speed: 1.5)
    // Cycle back south-west past the fence with sparse fixes, 25 m beside the point.
    let side = offset(center, 135, 25)
    walk(to: offset(side, 45, 140), speed: 6)
    let entry = offset(side, 45, 62)
    position = entry
    clock += 20
    raw.append(fix(entry, clock))
    position = offset(side, 225, 62)
    clock += 20
    raw.append(fix(position, clock))
    walk(to: offset(center, 230, 260), speed: 6, every: 4)
    return simulate(mission: mission, raw: raw)
  }

  /// A minimal model of the tracker's fence rules and distance filter for fixtures.
  static func simulate(mission: Mission, raw: [Fix], dwellSeconds: Double = 120) -> MissionReport {
    let center = mission.coordinate
    let radius = mission.geofenceRadiusMeters
    let margin = MissionReport.defaultExitMargin(radiusMeters: radius)
    var events: [TrackingEvent] = [
      TrackingEvent(
        time: raw[0].time, missionID: mission.id, kind: .state(from: .accepted, to: .active))
    ]
    var delivered: [Fix] = []
    var inside = false
    var insideSince: Date?
    var dwelt = false
    var arrived = false
    var travelled = 0.0
    var previous: Fix?
    for fix in raw {
      let distance = fix.coordinate.distance(to: center)
      if let previous, fix.time.timeIntervalSince(previous.time) > 60 {
        events.append(
          TrackingEvent(
            time: fix.time, missionID: mission.id,
            kind: .source(
              .gap, detail: "gap of \(Int(fix.time.timeIntervalSince(previous.time))) s")))
      }
      if !inside && distance <= radius {
        inside = true
        insideSince = fix.time
        dwelt = false
        events.append(
          TrackingEvent(
            time: fix.time, missionID: mission.id,
            kind: .enter(fenceID: mission.id, distanceMeters: distance, initial: false)))
        if !arrived {
          arrived = true
          events.append(
            TrackingEvent(
              time: fix.time, missionID: mission.id, kind: .state(from: .active, to: .arrived)))
        }
      } else if inside && distance > radius + margin {
        inside = false
        events.append(
          TrackingEvent(
            time: fix.time, missionID: mission.id,
            kind: .exit(fenceID: mission.id, distanceMeters: distance)))
      } else if inside, !dwelt, let since = insideSince,
        fix.time.timeIntervalSince(since) >= dwellSeconds
      {
        dwelt = true
        events.append(
          TrackingEvent(
            time: fix.time, missionID: mission.id,
            kind: .dwell(fenceID: mission.id, dwellSeconds: fix.time.timeIntervalSince(since))))
      } else if !inside, let previous {
        let closest = closestDistance(from: center, previous.coordinate, fix.coordinate)
        if closest <= radius {
          events.append(
            TrackingEvent(
              time: fix.time, missionID: mission.id,
              kind: .crossed(fenceID: mission.id, closestDistanceMeters: closest)))
        }
      }
      previous = fix
      if let last = delivered.last {
        guard fix.coordinate.distance(to: last.coordinate) >= 10 else { continue }
        travelled += fix.coordinate.distance(to: last.coordinate)
      }
      delivered.append(fix)
      events.append(
        TrackingEvent(
          time: fix.time, missionID: mission.id,
          kind: .fix(fix, distanceToMissionMeters: distance, travelledMeters: travelled)))
    }
    return MissionReport(mission: mission, track: delivered, events: events)
  }

  /// Closest distance from `center` to the segment a–b, by sampling (fixture accuracy).
  static func closestDistance(from center: Coordinate, _ a: Coordinate, _ b: Coordinate) -> Double {
    let length = a.distance(to: b)
    let bearing = a.initialBearingDegrees(to: b)
    var best = a.distance(to: center)
    var step = 0.0
    while step <= length {
      best = min(best, offset(a, bearing, step).distance(to: center))
      step += 0.5
    }
    return min(best, b.distance(to: center))
  }
}
