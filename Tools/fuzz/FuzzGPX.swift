// libFuzzer entry point for GPXDecoder. Built by Tools/fuzz/run-gpx, which compiles this file
// together with the decoder's sources into one module (no SwiftPM: its own `main` clashes
// with libFuzzer's).
//
// Oracle beyond "no crash, no hang, bounded memory": decoding the input whole and in two
// chunks split at an input-derived point, in lenient and in strict mode, must give exactly
// the same fixes, statistics and errors (with the same line and column).
import Foundation

private struct Outcome: Equatable {
  var fixes: [Fix] = []
  var statistics = TraceStatistics()
  var truncation: TraceError?
  var error: TraceError?
}

private func run(_ input: UnsafeRawBufferPointer, split: Int, strict: Bool) -> Outcome {
  var decoder = GPXDecoder(file: "fuzz.gpx", strict: strict, includeWaypoints: true)
  var outcome = Outcome()
  do throws(TraceError) {
    if split > 0, split < input.count {
      try decoder.decode(UnsafeRawBufferPointer(rebasing: input[..<split]), into: &outcome.fixes)
      try decoder.decode(UnsafeRawBufferPointer(rebasing: input[split...]), into: &outcome.fixes)
    } else {
      try decoder.decode(input, into: &outcome.fixes)
    }
    try decoder.finish(into: &outcome.fixes)
  } catch {
    outcome.error = error
  }
  outcome.statistics = decoder.statistics
  outcome.truncation = decoder.truncation
  if let error = outcome.error {
    precondition(error.line ?? 0 >= 1 && error.column ?? 0 >= 1, "error without a place")
  }
  return outcome
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGPX(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let input = UnsafeRawBufferPointer(start: data, count: size)
  let split = size == 0 ? 0 : Int(data[0]) * 7919 % size
  for strict in [false, true] {
    let whole = run(input, split: 0, strict: strict)
    let chunked = run(input, split: split, strict: strict)
    if whole.error == nil, chunked.error == nil {
      precondition(whole == chunked, "chunking changed the result")
    } else {
      // Statistics may stop at different points once an error is thrown; the error not.
      precondition(whole.error == chunked.error, "chunking changed the error")
    }
    for fix in whole.fixes {
      precondition((-90...90).contains(fix.coordinate.latitude))
      precondition((-180...180).contains(fix.coordinate.longitude))
      precondition(fix.courseDegrees.map { (0..<360).contains($0) } ?? true)
    }
  }
  return 0
}
