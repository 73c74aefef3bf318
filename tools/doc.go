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
// workspace and caches and tools' state (XDG_CACHE_HOME, XDG_CONFIG_HOME) go to the private /tmp. It has no
// network unless [Config.Network] is set. On a timeout, a cancellation or
// the worker's death the whole sandbox dies, every process in it. Without
// a working sandbox commands are refused, unless the operator chose
// [SandboxNone].
//
// The sandbox's /etc holds chosen entries of the host's, and its own
// gitconfig (an author for commits, nothing of the host's credential
// helpers).
//
// # Limits
//
// [Config.Limits] (tools.limits) bounds what one command may consume; a
// command that passes a limit is killed, and fails with a [*ToolError]
// naming the limit and its setting (tools.limits.processes, …); the
// worker's own resource limits are never touched. A command's first
// process is a shell outside the sandbox that waits at a gate until the
// worker has put it under its limits (resource limits with prlimit(2), and
// its cgroup), then execs bubblewrap; so every process the command ever
// starts is held by them. How each limit is enforced, with the mechanism
// [DetectCommandSandbox] finds at start ([CommandSandbox.String] names it):
//
//   - Processes and memory: with cgroup v2 delegated to the worker (the
//     pids and memory controllers available in its own cgroup, which it
//     may write; the worker moves itself into a leaf, planmode-worker,
//     the way systemd's Delegate= asks), or with the v1 pids and memory
//     hierarchies writable by the worker, each command gets a cgroup of its
//     own under the worker's, with pids.max and a memory limit (no swap
//     beyond it), removed once the command ended. Bubblewrap's own two
//     processes count among the processes, threads too. A fork refused at
//     the limit, or a process killed by the kernel at the memory limit,
//     ends the command. The memory limit covers the private /tmp, which is
//     held in memory.
//   - Without such a cgroup: the watchdog counts the tasks of the
//     command's process tree in /proc every 100ms and kills it past the
//     limit (a fork bomb may briefly pass it; a worker that is not root
//     also sets RLIMIT_NPROC, which the kernel ignores for root), and
//     memory is RLIMIT_AS, address space per process: a program that
//     reserves much more than it uses (some runtimes do) needs a higher
//     limit, and a failed allocation is named only when the program's
//     output says so.
//   - CPU time (RLIMIT_CPU, per process: SIGXCPU, then SIGKILL a second
//     later) and file size (RLIMIT_FSIZE: SIGXFSZ) are rlimits on every
//     host; core dumps are off. They are named when the command died of
//     them; a program that reports its child's death its own way (make)
//     shows it in its output.
//   - /tmp is a tmpfs of TmpBytes (bubblewrap's --size, 0.8 and later):
//     a write past it fails with ENOSPC inside the command. An older
//     bubblewrap leaves its size to the memory cgroup, or, without one,
//     unbounded; [CommandSandbox.String] says so.
//   - The workspace: a watchdog measures it (the sizes of its regular
//     files, by an lstat walk that never follows a symlink and stops after
//     a million entries) every 250ms, less often when the walk takes long,
//     and kills the command once it grew by more than GrowthBytes or
//     passed WorkspaceBytes; its size once the command ended decides too.
//     The files a command left stay (rolling back is the plan's), and the
//     error says how much the workspace holds. write_file refuses a write
//     over FileBytes or one that would pass either workspace limit.
//
// What the limits do not bound: the time between two looks of the
// watchdog (a fast writer may put a few hundred MiB in the workspace, a
// fork bomb without cgroups a few hundred processes, before it is killed);
// disk outside the workspace, which the sandbox cannot write; the network,
// when tools.network lets it. Unsandboxed (tools.sandbox none) the same
// limits apply, but for /tmp, and a process that leaves the command's
// process group escapes the watchdog's count. Nor do they bound the
// workspace's content: a command may rewrite it whole, .git and its hooks
// included. And repetition: an activity that failed midway, or whose
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
//
// finish_step ([FinishStep]) is not in the registry: an agent turn offers
// it beside the step's tools ([FinishStepSpec]) and the workflow, not a
// tool run, ends the step with its answer ([DecodeFinishStep]) once the
// turn's other calls have succeeded.
package tools
