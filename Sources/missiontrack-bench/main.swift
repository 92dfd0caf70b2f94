import Foundation
import MissionTrackBenchmarks
import MissionTrackCLI

#if DEBUG
  // Figures from a debug build are meaningless; say so rather than refuse, so that the
  // benchmarks can still be smoke-tested quickly.
  FileHandle.standardError.write(
    Data("missiontrack-bench: debug build; measure with swift run -c release\n".utf8))
#endif

exit(await BenchmarkTool.run(Array(CommandLine.arguments.dropFirst())))
