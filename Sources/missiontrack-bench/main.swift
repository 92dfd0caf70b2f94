import Foundation
import MissionTrackBenchmarks

#if DEBUG
  // Figures from a debug build are meaningless; say so rather than refuse, so that the
  // benchmarks can still be smoke-tested quickly.
  // write(2), not FileHandle.write, which traps when stderr is closed or full.
  let warning = Array("missiontrack-bench: debug build; measure with swift run -c release\n".utf8)
  _ = warning.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
#endif

exit(await BenchmarkTool.run(Array(CommandLine.arguments.dropFirst())))
