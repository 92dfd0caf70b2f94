import Foundation
import MissionTracking
import Testing

@testable import MissionStore

@Suite struct ConcurrencyTests {
  @Test func readersAndASecondWriterRunBesideTheRecorderWithoutLockErrors() throws {
    let directory = try TemporaryDirectory()
    let others = (0..<20).map { Fixtures.mission("o\($0)") }
    let writer = try Fixtures.database(
      in: directory, missions: [Fixtures.mission("w", state: .active)] + others,
      configuration: StoreConfiguration(
        synchronous: .normal,
        groupCommit: GroupCommitPolicy(maxEvents: 250, maxDelay: .milliseconds(5))))
    let path = directory.path()
    let fixCount = 20_000
    let errors = Shared<[String]>([])
    let finished = Shared(0)
    let group = DispatchGroup()

    DispatchQueue.global().async(group: group) {
      defer { finished.update { $0 += 1 } }
      do {
        for start in stride(from: 0, to: fixCount, by: 100) {
          try writer.record(
            contentsOf: (start..<start + 100).map { Fixtures.fixEvent($0, mission: "w") })
        }
        try writer.flush()
      } catch {
        errors.update { $0.append("recorder: \(error)") }
      }
    }
    // A second process-like writer: lifecycle changes on its own connection.
    DispatchQueue.global().async(group: group) {
      defer { finished.update { $0 += 1 } }
      do {
        let lifecycle = try MissionDatabase(path: path)
        for mission in others {
          try lifecycle.apply(.accept, toMission: mission.id)
          try lifecycle.apply(.cancel, toMission: mission.id)
        }
      } catch {
        errors.update { $0.append("lifecycle: \(error)") }
      }
    }

    let reader = try MissionDatabase(
      path: directory.path(), configuration: StoreConfiguration(readOnly: true))
    var lastSequence: Int64 = 0
    var seen = 0
    var rounds = 0
    repeat {
      do {
        _ = try reader.missions(inState: .open)
        let fresh = try reader.events(afterSequence: lastSequence)
        for event in fresh {
          // Every committed event appears once, in order, with no gap.
          #expect(event.sequence == lastSequence + 1)
          lastSequence = event.sequence
        }
        seen += fresh.count
        if rounds % 10 == 0 { _ = try reader.missionLocations() }
      } catch {
        errors.update { $0.append("reader: \(error)") }
        break
      }
      rounds += 1
    } while finished.get() < 2
    group.wait()
    seen += try reader.events(afterSequence: lastSequence).count

    #expect(errors.get() == [])
    #expect(rounds > 1)
    #expect(try reader.track(ofMission: "w").count == fixCount)
    #expect(seen == fixCount + 2 * others.count)
    #expect(try reader.missions(inState: .cancelled).count == others.count)
    #expect(try writer.integrityCheck() == ["ok"])
  }
}
