import Foundation
import MissionTrackCLI

exit(await MissionTrackTool.run(Array(CommandLine.arguments.dropFirst())))
