import Foundation
import MissionTracking
import Testing

@testable import TraceFormats

/// Fault injection: each fault does what it says, seeded and repeatable, and the faults do
/// not disturb each other.
@Suite struct TraceMutatorTests {
  let walk = MutationFixtures.walk()

  static let everything = TraceFaults(
    noiseSigmaMeters: 5, dropoutProbability: 0.1,
    outages: [
      TraceOutage(start: .secondsAfterFirstFix(100), durationSeconds: 30),
      TraceOutage(start: .secondsAfterFirstFix(400), durationSeconds: 5),
    ], jumpMeters: 300, jumpEvery: 50, duplicateProbability: 0.05, reorderProbability: 0.05,
    seed: 7)

  @Test func noFaultsPassEveryFixThroughUnchanged() throws {
    #expect(TraceFaults().isEmpty)
    #expect(try TraceMutator.mutate(walk, with: TraceFaults()) == walk)
  }

  @Test func theSameSeedGivesTheSameFixesAndAnotherSeedOtherOnes() throws {
    let first = try TraceMutator.mutate(walk, with: Self.everything)
    let second = try TraceMutator.mutate(walk, with: Self.everything)
    #expect(first == second)
    var other = Self.everything
    other.seed = 8
    #expect(try TraceMutator.mutate(walk, with: other) != first)
  }

  @Test func theCountsAddUp() throws {
    var mutator = try TraceMutator(Self.everything)
    var output: [Fix] = []
    for fix in walk { mutator.mutate(fix, into: &output) }
    mutator.finish(into: &output)
    let counts = mutator.counts
    #expect(counts.input == walk.count)
    #expect(counts.output == output.count)
    #expect(counts.output == counts.input - counts.droppedOut - counts.inOutage + counts.duplicated)
    #expect(counts.inOutage == 35)
    #expect(counts.jumped > 0 && counts.duplicated > 0 && counts.reordered > 0)
  }

  @Test func noiseHasTheGivenSigmaOnEachAxisAndNoBias() throws {
    let fixes = MutationFixtures.standing(count: 4000)
    let noisy = try TraceMutator.mutate(fixes, with: TraceFaults(noiseSigmaMeters: 5, seed: 3))
    #expect(noisy.count == fixes.count)
    let origin = MutationFixtures.origin
    var norths: [Double] = []
    var easts: [Double] = []
    for fix in noisy {
      let distance = origin.distance(to: fix.coordinate)
      let bearing = origin.initialBearingDegrees(to: fix.coordinate) * .pi / 180
      norths.append(distance * cos(bearing))
      easts.append(distance * sin(bearing))
    }
    for values in [norths, easts] {
      let mean = values.reduce(0, +) / Double(values.count)
      let sigma = (values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(values.count))
        .squareRoot()
      // Standard error of the mean is 5/√4000 ≈ 0.08 m; of σ about 0.06 m.
      #expect(abs(mean) < 0.4, "mean \(mean)")
      #expect(abs(sigma - 5) < 0.3, "sigma \(sigma)")
    }
    #expect(noisy.map(\.time) == fixes.map(\.time))
  }

  @Test func dropoutRemovesAboutThatShareAndKeepsTheRestInOrder() throws {
    let fixes = MutationFixtures.standing(count: 5000)
    let kept = try TraceMutator.mutate(fixes, with: TraceFaults(dropoutProbability: 0.3, seed: 9))
    // Binomial(5000, 0.7): σ ≈ 32 fixes.
    #expect(abs(kept.count - 3500) < 150, "\(kept.count)")
    #expect(zip(kept, kept.dropFirst()).allSatisfy { $0.time < $1.time })
    #expect(try TraceMutator.mutate(fixes, with: TraceFaults(dropoutProbability: 1)).isEmpty)
    #expect(try TraceMutator.mutate(fixes, with: TraceFaults(dropoutProbability: 0)) == fixes)
  }

  @Test func outagesRemoveExactlyTheirWindows() throws {
    let absolute = MutationFixtures.start.addingTimeInterval(300)
    let faults = TraceFaults(outages: [
      TraceOutage(start: .secondsAfterFirstFix(10), durationSeconds: 20),
      TraceOutage(start: .time(absolute), durationSeconds: 0.5),
      TraceOutage(start: .secondsAfterFirstFix(595), durationSeconds: 1000),
    ])
    let kept = try TraceMutator.mutate(walk, with: faults)
    let offsets = Set(kept.map { Int($0.time.timeIntervalSince(MutationFixtures.start)) })
    let expected = Set(0..<600).subtracting(10..<30).subtracting([300]).subtracting(595..<600)
    #expect(offsets == expected)
  }

  @Test func everyNthFixJumpsExactlyThatFar() throws {
    let faults = TraceFaults(jumpMeters: 250, jumpEvery: 40, seed: 5)
    let jumped = try TraceMutator.mutate(walk, with: faults)
    #expect(jumped.count == walk.count)
    var bearings: Set<Int> = []
    for (index, (before, after)) in zip(walk, jumped).enumerated() {
      let moved = before.coordinate.distance(to: after.coordinate)
      if (index + 1) % 40 == 0 {
        #expect(abs(moved - 250) < 1e-6, "fix \(index) moved \(moved) m")
        bearings.insert(Int(before.coordinate.initialBearingDegrees(to: after.coordinate) / 30))
      } else {
        #expect(moved == 0, "fix \(index) moved \(moved) m")
      }
    }
    #expect(bearings.count > 3, "the jumps should point in several directions")
  }

  @Test func duplicatesFollowTheirOriginal() throws {
    let doubled = try TraceMutator.mutate(
      walk, with: TraceFaults(duplicateProbability: 0.2, seed: 11))
    let repeats = zip(doubled, doubled.dropFirst()).filter { $0 == $1 }.count
    #expect(doubled.count == walk.count + repeats)
    #expect(repeats > 80 && repeats < 160, "\(repeats)")
    #expect(MutationFixtures.foldingRepeatedEpochs(doubled) == walk)
  }

  @Test func reorderingSwapsNeighboursOnly() throws {
    var mutator = try TraceMutator(TraceFaults(reorderProbability: 0.2, seed: 13))
    var output: [Fix] = []
    for fix in walk { mutator.mutate(fix, into: &output) }
    mutator.finish(into: &output)
    #expect(output.count == walk.count)
    #expect(Set(output) == Set(walk))
    let backwards = zip(output, output.dropFirst()).filter { $0.time > $1.time }
    #expect(backwards.count == mutator.counts.reordered)
    #expect(backwards.count > 50)
    for (later, earlier) in backwards {
      #expect(later.time.timeIntervalSince(earlier.time) == 1, "only neighbours swap")
    }
  }

  @Test func oneFaultDoesNotChangeWhatAnotherDoes() throws {
    let noise = try TraceMutator.mutate(walk, with: TraceFaults(noiseSigmaMeters: 4, seed: 21))
    let both = try TraceMutator.mutate(
      walk, with: TraceFaults(noiseSigmaMeters: 4, dropoutProbability: 0.4, seed: 21))
    let byTime = Dictionary(uniqueKeysWithValues: noise.map { ($0.time, $0) })
    #expect(both.count < noise.count)
    for fix in both { #expect(byTime[fix.time] == fix) }
  }

  @Test(arguments: [
    TraceFaults(noiseSigmaMeters: -1), TraceFaults(noiseSigmaMeters: .nan),
    TraceFaults(noiseSigmaMeters: .infinity), TraceFaults(dropoutProbability: 1.01),
    TraceFaults(dropoutProbability: -0.1), TraceFaults(duplicateProbability: .nan),
    TraceFaults(reorderProbability: 2), TraceFaults(jumpMeters: -5, jumpEvery: 3),
    TraceFaults(jumpMeters: 5, jumpEvery: -3),
    TraceFaults(outages: [TraceOutage(start: .secondsAfterFirstFix(0), durationSeconds: 0)]),
    TraceFaults(outages: [TraceOutage(start: .secondsAfterFirstFix(-1), durationSeconds: 5)]),
  ])
  func outOfRangeValuesAreRefused(_ faults: TraceFaults) {
    #expect(throws: TraceError.self) { try TraceMutator(faults) }
    #expect(throws: TraceError.self) { try TraceMutator.mutate([], with: faults) }
  }

  @Test func outagesAreReadFromStartPlusSeconds() throws {
    #expect(
      try TraceOutage(parsing: "120+30")
        == TraceOutage(start: .secondsAfterFirstFix(120), durationSeconds: 30))
    #expect(
      try TraceOutage(parsing: "0.5+1.5")
        == TraceOutage(start: .secondsAfterFirstFix(0.5), durationSeconds: 1.5))
    #expect(
      try TraceOutage(parsing: "2026-05-04T10:12:00Z+45")
        == TraceOutage(
          start: .time(MutationFixtures.start.addingTimeInterval(720)), durationSeconds: 45))
    #expect(
      try TraceOutage(parsing: "2026-05-04T12:12:00+02:00+45")
        == TraceOutage(
          start: .time(MutationFixtures.start.addingTimeInterval(720)), durationSeconds: 45))
    for bad in ["", "120", "+30", "120+", "a+30", "120+x", "120+0", "120+-5", "-5+10", "nan+3"] {
      #expect(throws: TraceError.self, "'\(bad)'") { try TraceOutage(parsing: bad) }
    }
  }
}
