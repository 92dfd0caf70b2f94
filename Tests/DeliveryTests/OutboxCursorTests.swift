import Testing

@testable import Delivery

@Suite struct OutboxCursorTests {
  /// (seqs taken, seqs finished in this order, the positions reported after each finish).
  @Test(
    arguments: [
      ([1, 2, 3], [1, 2, 3], [1, 2, 3]),
      ([1, 2, 3], [3, 2, 1], [nil, nil, 3]),
      ([1, 2, 3], [2, 1, 3], [nil, 2, 3]),
      ([5, 9, 12], [9, 5, 12], [nil, 9, 12]),
    ] as [([Int64], [Int64], [Int64?])])
  func movesOnlyOverAFinishedPrefix(taken: [Int64], finished: [Int64], positions: [Int64?]) {
    var cursor = OutboxCursor(position: 0)
    let took = taken.map { cursor.take($0) }
    #expect(took.allSatisfy { $0 })
    var reported: [Int64?] = []
    for seq in finished { reported.append(cursor.finish(seq)) }
    #expect(reported == positions)
    #expect(cursor.heldCount == 0)
  }

  @Test func repeatsAndOlderSeqsAreNotTaken() {
    var cursor = OutboxCursor(position: 10)
    let took = [10, 3, 11, 11].map { cursor.take($0) }
    #expect(took == [false, false, true, false])
    #expect(cursor.lastTaken == 11)
    let moved = cursor.finish(11)
    #expect(moved == 11)
  }

  @Test func aLongRunKeepsOnlyWhatIsHeld() {
    var cursor = OutboxCursor(position: 0)
    for seq in 1...10_000 as ClosedRange<Int64> {
      _ = cursor.take(seq)
      if seq > 1 { _ = cursor.finish(seq) }
    }
    #expect(cursor.position == 0)
    #expect(cursor.heldCount == 10_000)
    let moved = cursor.finish(1)
    #expect(moved == 10_000)
    #expect(cursor.heldCount == 0)
  }
}
