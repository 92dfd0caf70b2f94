import Foundation
import MissionFiles
import Synchronization
import Testing

@Suite struct ChunkHandOverTests {
  /// A flag the producers spin on.
  final class Gate: Sendable {
    private let open = Atomic<Bool>(false)
    var isOpen: Bool { open.load(ordering: .acquiring) }
    func release() { open.store(true, ordering: .releasing) }
  }

  /// Chunks that keep every core busy must leave dispatch's global queue free: a stopping
  /// server's signal handler runs there, and it is what stops the import.
  @Test func busyChunksLeaveTheGlobalQueueFree() {
    let count = 2 * ProcessInfo.processInfo.activeProcessorCount
    let handOver = ChunkHandOver<Int>(count: count)
    let gate = Gate()
    handOver.produce { index in
      while !gate.isOpen {}  // busy, as a long validation is
      return index
    }
    usleep(100_000)  // the producers are spinning by now
    let ran = DispatchSemaphore(value: 0)
    DispatchQueue.global().async { ran.signal() }
    let prompt = ran.wait(timeout: .now() + 2) == .success
    gate.release()
    #expect(prompt, "a block on the global queue waited for the chunks")
    #expect((0..<count).map { handOver.take($0) } == Array(0..<count))
  }
}
