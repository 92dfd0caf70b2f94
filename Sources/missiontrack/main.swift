import Foundation
import MissionTrackCLI

// A parent may have blocked SIGINT/SIGTERM (test runners and some supervisors do); `track`
// must still hear them to stop cleanly, so unblock them before any thread starts.
var termination = sigset_t()
sigemptyset(&termination)
sigaddset(&termination, SIGINT)
sigaddset(&termination, SIGTERM)
sigprocmask(SIG_UNBLOCK, &termination, nil)

exit(await MissionTrackTool.run(Array(CommandLine.arguments.dropFirst())))
