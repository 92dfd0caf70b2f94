import Foundation
import Ingest
import MissionStore
import MissionTracking

/// `/v1/ingest/…` (DESIGN §8): phones and trackers as receivers. Each request is decoded by
/// its protocol's decoder (module `Ingest`), its sender found among the registered devices
/// and checked by its secret, and its positions handed to the engine for the device's
/// worker (`IngestWriter`); the reply is the one its client expects (`IngestReply`).
extension MissionService {
  /// Whether `request` is for `/v1/ingest/…`: phones have no service token, their device's
  /// registration and secret are the credentials (checked by the route, not the policy).
  static func isIngest(_ request: HTTPRequest) -> Bool {
    request.segments.count == 4 && request.segments[1] == "v1" && request.segments[2] == "ingest"
  }

  /// Answers one ingest request of `protocolName`: refused at once, or answered later, once
  /// the engine has decided its positions (`IngestWriter`) — the server's thread is not held
  /// meanwhile.
  /// - Throws: `ServiceError` with the status the client expects: the decoder's (400, or
  ///   Traccar's 400/404 for an unknown device, 401 for Overland), 401 for a wrong or
  ///   missing secret.
  func ingest(_ protocolName: IngestProtocol, _ request: HTTPRequest) throws -> HTTPServer.Answer {
    let batch: IngestBatch
    let worker: String?
    do {
      batch = try protocolName.decode(Self.ingestRequest(request))
    } catch {
      ingestMetrics.note(protocolName, refused: .malformed)
      throw ServiceError(status: error.status, message: error.message)
    }
    do {
      worker = try sender(of: batch)
    } catch let refusal as IngestRefusal {
      ingestMetrics.note(protocolName, refused: refusal.reason)
      throw ServiceError(status: refusal.error.status, message: refusal.error.message)
    }
    guard let worker else {
      return .now(
        reply(protocolName, batch, IngestWriter.Outcome(counts: IngestCounts(), tracked: false)))
    }
    // One tracker per worker: refused (503, the phone sends them again) while another
    // process tracks it.
    do {
      try phoneLeases.claim(worker)
    } catch {
      ingestMetrics.note(protocolName, refused: .trackedElsewhere)
      throw error
    }
    let pending = PendingResponse()
    // A batch is committed before its reply (Overland's rule, and our fix lines').
    let durable = protocolName == .overland || protocolName == .native
    ingestWriter.write(batch.positions.map(\.fix), worker: worker, durable: durable) {
      [self] result in
      switch result {
      case .success(let outcome):
        phoneLeases.settle(worker, tracked: outcome.tracked)
        pending.fulfil(reply(protocolName, batch, outcome, worker: worker))
      case .failure(let error):
        phoneLeases.settle(worker, tracked: false)
        pending.fulfil(Self.serviceError(error).response)
      }
    }
    return .later(pending)
  }

  /// The reply the client of `protocolName` expects for `batch` and its `outcome`, counted
  /// in `/metrics`; `worker` nil for a request naming nobody (acknowledged without steering
  /// the phone).
  private func reply(
    _ protocolName: IngestProtocol, _ batch: IngestBatch, _ outcome: IngestWriter.Outcome,
    worker: String? = nil
  ) -> HTTPResponse {
    let counts = outcome.counts
    ingestMetrics.note(protocolName, counts, decoderRejected: batch.rejected.count)
    let reply = IngestReply(
      acknowledging: protocolName, tracked: worker == nil ? nil : outcome.tracked,
      outcome: IngestOutcome(
        accepted: counts.accepted,
        // Not recorded because the worker's track already holds a fix at or after their
        // time: a resent batch, or fixes older than the last one.
        duplicates: counts.duplicates + counts.outOfOrder, untracked: counts.untracked,
        rejected: counts.rejected + batch.rejected.count))
    return HTTPResponse(
      status: reply.status, contentType: reply.contentType ?? "text/plain; charset=utf-8",
      body: reply.body)
  }

  /// A refused sender: the error its client expects and the reason `/metrics` counts.
  private struct IngestRefusal: Error {
    var error: IngestError
    var reason: IngestMetrics.Refusal
  }

  /// The worker whose positions `batch` carries, checked by its credentials; nil for a
  /// request that carries no position and names nobody (acknowledged, nothing done).
  /// - Throws: `IngestRefusal` for an unknown sender or a wrong or missing secret.
  private func sender(of batch: IngestBatch) throws -> String? {
    switch batch.identity {
    case .device(let id):
      guard let (worker, device) = try deviceRegistrations.registration(batch.protocolName, id: id)
      else {
        throw IngestRefusal(error: batch.unknownDevice(), reason: .unknownDevice)
      }
      try check(batch, against: device)
      return worker
    case .unnamed:
      // Overland without a device id: the device whose secret the request presents.
      if batch.protocolName == .overland, let secret = batch.secret,
        let found = try deviceRegistrations.overlandRegistration(presenting: secret)
      {
        return found.worker
      }
      guard batch.positions.isEmpty else {
        throw IngestRefusal(error: batch.unknownDevice(), reason: .unknownDevice)
      }
      return nil
    case .worker(let id):
      guard let worker = try database.worker(id) else {
        throw IngestRefusal(error: batch.unknownDevice(), reason: .unknownDevice)
      }
      // The service token, or the secret of one of the worker's devices; without a token
      // on a loopback listen the whole API is open, and so is this.
      if let token = configuration.token {
        if IngestSecret.matches(batch.secret, token) { return worker.id }
      } else if configuration.listensOnLoopback {
        return worker.id
      }
      let known = worker.devices.contains { device in
        device.secret.map { IngestSecret.matches(batch.secret, $0) } ?? false
      }
      guard known else { throw IngestRefusal(error: batch.wrongSecret(), reason: .wrongSecret) }
      return worker.id
    }
  }

  /// Refuses `batch` unless it presents `device`'s secret (compared in constant time); a
  /// device registered without a secret is accepted on a loopback listen only.
  private func check(_ batch: IngestBatch, against device: WorkerDevice) throws {
    guard let expected = device.secret else {
      guard configuration.listensOnLoopback else {
        throw IngestRefusal(
          error: IngestError(
            status: 401,
            message:
              "\(batch.protocolName.rawValue): device '\(device.deviceID)' has no secret: "
              + "accepted on a loopback listen only; register it with one"),
          reason: .wrongSecret)
      }
      return
    }
    guard IngestSecret.matches(batch.secret, expected) else {
      throw IngestRefusal(error: batch.wrongSecret(), reason: .wrongSecret)
    }
  }

  /// `request` as the decoders see it, stamped with the time it is answered (the time of
  /// an OsmAnd report that carries none).
  static func ingestRequest(_ request: HTTPRequest) -> IngestRequest {
    IngestRequest(
      method: request.method, path: request.path,
      query: request.query.items,
      headers: request.headers.map { (name: $0.key, value: $0.value) }, body: request.body,
      receivedAt: Date())
  }
}
