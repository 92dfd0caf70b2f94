import Foundation
import MissionTrackBenchmarks
import MissionTrackCLI

#if DEBUG
  // Figures from a debug build are meaningless; say so rather than refuse, so that the
  // benchmarks can still be smoke-tested quickly.
  // fputs, not FileHandle.write, which traps when stderr is closed or full.
  fputs("missiontrack-bench: debug build; measure with swift run -c release\n", stderr)
#endif

exit(await BenchmarkTool.run(Array(CommandLine.arguments.dropFirst())))
