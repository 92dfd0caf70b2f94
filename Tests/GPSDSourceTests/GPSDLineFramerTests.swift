import MissionProximity
import Testing

@testable import GPSDSource

struct GPSDLineFramerTests {
  @Test func linesAreSplitOnNewlineAndLoseTheirCarriageReturn() {
    var framer = GPSDLineFramer(maximumLineBytes: 100)
    let items = framer.feed(Array("ab\r\ncd\n\r\n".utf8))
    #expect(items == [.line(Array("ab".utf8)), .line(Array("cd".utf8)), .line([])])
  }

  @Test func aLineSplitAcrossReadsIsJoined() {
    var framer = GPSDLineFramer(maximumLineBytes: 100)
    #expect(framer.feed(Array("{\"cla".utf8)).isEmpty)
    #expect(framer.feed(Array("ss\":1}\r".utf8)).isEmpty)
    #expect(framer.feed([0x0A]) == [.line(Array("{\"class\":1}".utf8))])
  }

  @Test func anOverlongLineIsReportedOnceAndReadingResumesAfterIt() {
    var framer = GPSDLineFramer(maximumLineBytes: 8)
    var items: [GPSDLineFramer.Item] = []
    for _ in 0..<1000 { items += framer.feed(Array("xxxxxxxxxx".utf8)) }
    items += framer.feed(Array("\nok\n".utf8))
    #expect(items == [.overlong, .line(Array("ok".utf8))])
  }

  @Test func aLineOfExactlyTheLimitIsKept() {
    var framer = GPSDLineFramer(maximumLineBytes: 4)
    #expect(framer.feed(Array("abcd\nabcde\n".utf8)) == [.line(Array("abcd".utf8)), .overlong])
  }

  @Test func resetForgetsAPartialLine() {
    var framer = GPSDLineFramer(maximumLineBytes: 100)
    _ = framer.feed(Array("partial".utf8))
    framer.reset()
    #expect(framer.feed(Array("new\n".utf8)) == [.line(Array("new".utf8))])
  }

  /// Random streams in random chunks give the same items as splitting the whole stream.
  @Test func matchesABruteForceSplitForRandomStreamsAndChunkings() {
    var rng = SplitMix64(seed: 0x6770_7364)
    for _ in 0..<500 {
      let limit = Int.random(in: 1...12, using: &rng)
      let alphabet: [UInt8] = [0x0A, 0x0D, 0x61, 0x62, 0x7B, 0x00, 0xFF]
      let stream = (0..<Int.random(in: 0...120, using: &rng)).map { _ in
        alphabet.randomElement(using: &rng)!
      }
      var framer = GPSDLineFramer(maximumLineBytes: limit)
      var items: [GPSDLineFramer.Item] = []
      var index = 0
      while index < stream.count {
        let end = min(stream.count, index + Int.random(in: 1...9, using: &rng))
        items += framer.feed(stream[index..<end])
        index = end
      }
      #expect(items == model(stream, limit: limit))
    }
  }

  private func model(_ stream: [UInt8], limit: Int) -> [GPSDLineFramer.Item] {
    let segments = stream.split(separator: 0x0A, omittingEmptySubsequences: false)
    var items: [GPSDLineFramer.Item] = []
    for (i, segment) in segments.enumerated() {
      let complete = i < segments.count - 1
      if segment.count > limit {
        items.append(.overlong)
      } else if complete {
        var line = Array(segment)
        if line.last == 0x0D { line.removeLast() }
        items.append(.line(line))
      }
    }
    return items
  }
}
