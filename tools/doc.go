// Package tools holds the tools an agent may call while it carries out a
// plan: reading, writing, listing and searching files, and running allowed
// commands and the workspace's tests.
//
// # Files
//
// Every file tool works inside a [Sandbox] confined to one workspace root:
// a path never leaves the workspace (no "..", no absolute path outside it,
// no symlink that leads out), and a regular file with more than one hard
// link is neither read nor written, since its other names may lie outside.
//
// The file tools run in the worker, outside the command sandbox, while a
// command of a parallel step may be changing the workspace under them. So
// nothing is checked by name and then opened by name: every open, stat,
// rename and removal, and every directory a walk goes down into, goes
// through an [os.Root] on the workspace, which refuses at each component
// a symlink or ".." leading out, whenever it was put there. What a tool
// refuses or accepts about a file (regular, one hard link, its size) it
// learns from the opened descriptor; opens do not block, so a named pipe
// is refused rather than waited on; writes create a new file and rename
// it over the old name, never writing into whatever the name leads to.
//
// # Commands
//
// run_command and run_tests start a program directly, never through a
// shell, and only one the allowlist names ([Config.AllowCommands],
// [Config.AllowTests]). The allowlist is a convenience, not the boundary:
// make, go run or npm test run whatever the workspace holds. The boundary
// is the command sandbox ([DetectCommandSandbox], [Config.Sandbox]):
// bubblewrap gives every command its own PID, mount, IPC, UTS and network
// namespaces, a private /proc (no process of the worker is visible) and
// /tmp, a minimal /dev, read-only system directories and chosen entries of
// /etc, and the workspace as the only writable place; the worker's
// configuration, outputs, snapshots and home are not there. Its
// environment is declared ([Config.Env]): nothing of the worker's is
// inherited but the directories of PATH it can see and LANG, HOME is the
// workspace and caches (XDG_CACHE_HOME) go to the private /tmp. It has no network unless [Config.Network] is set. On a
// timeout, a cancellation or the worker's death the whole sandbox dies,
// every process in it. Without a working sandbox commands are refused,
// unless the operator chose [SandboxNone].
//
// What the sandbox does not bound: CPU, memory, disk and process counts
// (a command may exhaust the machine until its timeout); the workspace
// itself, which a command may rewrite or fill whole, .git and its hooks
// included; and repetition: an activity that failed midway, or whose
// worker died, runs its command again, so a command should be safe to
// repeat (write to a fresh file and rename it, check before creating).
//
// # Registry
//
// A [Registry] maps tool names to [Tool] values. [Builtin] returns one with
// the built-in tools; a Go program adds its own with [Registry.Register]:
// a [Spec] (name, description, JSON schema of the arguments, whether the tool
// is read-only) and a run function.
//
// # Failures
//
// A tool that runs but fails (a missing file, a command that exits non-zero,
// a path that leaves the workspace, a malformed argument) returns a
// [*ToolError]: the agent sees the message and may correct itself. Any other
// error is a fault of the worker and fails the activity.
//
// # Built-in tools
//
// Read-only: read_file, list_files, search_files, search_code. Changing the
// workspace: write_file, delete_file, run_command, run_tests. finish_plan
// changes nothing but ends the whole plan early ([Result.Exit]), so it is
// not read-only either. Planning and reflection see only the read-only ones
// ([Registry.ReadOnlySpecs]).
package tools
