package planworker

import "time"

// HeartbeatThrottle is the longest the SDK holds an activity's heartbeat
// back before it sends it (sdkworker.Options.MaxHeartbeatThrottleInterval).
// An activity hears that it was cancelled only in the answer to a heartbeat
// the SDK sent, and by default the SDK sends one per 0.8 × the heartbeat
// timeout (24 s for the default 30 s), keeping the beats between: a command
// that beats as it starts (tools/command.go) would not hear a run's
// deadline or cancellation until 24 s later, and one shorter than that runs
// to its end, which the workflow, waiting for the cancellation to be
// acknowledged (WaitForCancellation), then records as completed. With this
// bound a cancellation reaches an activity at its next beat (a command's
// tools.heartbeatInterval, 5 s by default).
const HeartbeatThrottle = time.Second
