import MissionTracking
import TraceFormats

/// `GPSDJSONDecoder` (the one `missiontrack decode` uses for `gpspipe -w` logs) driven by the
/// live reader loop, plus what only a live reader acts on: a no-fix TPV becomes a `noFix`
/// item (mode 1; mode 0, "not seen yet", only ends the epoch), and `DEVICE` reports track
/// whether gpsd still has a receiver.
struct GPSDLiveDecoder: LiveDecoder {
  static let releasesHeldEpochWhileBusy = true

  private var decoder = GPSDJSONDecoder(source: "gpsd")
  private var fixes: [Fix] = []
  /// Devices gpsd reported active on this connection.
  private var activeDevices: Set<String> = []
  private var receiverLost = false
  private let receiver: String

  /// A decoder for a connection to `receiver` (`gpsd at HOST:PORT`, for details).
  init(receiver: String) {
    self.receiver = receiver
  }

  var holdsEpoch: Bool { decoder.hasOpenEpoch }
  var statistics: TraceStatistics { decoder.statistics }

  mutating func feed(_ bytes: UnsafeRawBufferPointer, into items: inout [LiveItem]) {
    Self.forEachLine(bytes) { line in
      // Lenient decoding never throws: bad lines are counted in its statistics.
      Self.collect(&decoder, &fixes, into: &items) { try? $0.decode(line, into: &$1) }
      switch decoder.takeNote() {
      case .noFix(let mode):
        if mode == 1 { items.append(.noFix) }
      case .device(let path, activated: true):
        activeDevices.insert(path)
        if receiverLost {
          receiverLost = false
          items.append(.receiverBack("\(receiver): gpsd activated \(path)"))
        }
      case .device(let path, activated: false):
        // What the receiver sent before it went is complete.
        releaseHeldEpochs(into: &items)
        activeDevices.remove(path)
        if activeDevices.isEmpty, !receiverLost {
          receiverLost = true
          items.append(.receiverLost("\(receiver): gpsd deactivated \(path)"))
        }
      case nil:
        break
      }
    }
  }

  mutating func releaseHeldEpochs(into items: inout [LiveItem]) {
    Self.collect(&decoder, &fixes, into: &items) { $0.releaseOpenEpoch(into: &$1) }
  }

  mutating func finish(into items: inout [LiveItem]) {
    Self.collect(&decoder, &fixes, into: &items) { try? $0.finish(into: &$1) }
  }
}
