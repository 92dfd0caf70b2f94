/// The events of a `MissionEngine`, in order, one at a time.
///
/// The engine hands them over a batch at a time (all events of a batch of reports), so a
/// consumer is woken once per batch rather than once per event; iterating yields the events
/// one by one. One consumer only, like `AsyncStream`.
public struct TrackingEvents: AsyncSequence, Sendable {
  /// One event.
  public typealias Element = TrackingEvent

  private let batches: AsyncStream<[TrackingEvent]>

  init(_ batches: AsyncStream<[TrackingEvent]>) { self.batches = batches }

  /// The events as the engine hands them over, a batch at a time: for a consumer that keeps
  /// every event, which then copies each once (iterating them one by one copies each out of
  /// its batch and again into the consumer's array, as it grows). Instead of iterating
  /// `self`, not beside it.
  package var batchesAsHandedOver: AsyncStream<[TrackingEvent]> { batches }

  /// Iterates the events.
  public func makeAsyncIterator() -> Iterator { Iterator(batches.makeAsyncIterator()) }

  /// The iterator of `TrackingEvents`.
  public struct Iterator: AsyncIteratorProtocol {
    private var batches: AsyncStream<[TrackingEvent]>.Iterator
    private var current: [TrackingEvent] = []
    private var index = 0

    init(_ batches: AsyncStream<[TrackingEvent]>.Iterator) { self.batches = batches }

    /// The next event, or nil once the engine shut down and every event was read.
    public mutating func next() async -> TrackingEvent? {
      while index == current.count {
        guard let batch = await batches.next() else { return nil }
        current = batch
        index = 0
      }
      index += 1
      return current[index - 1]
    }
  }
}
