// Package tools holds the tools an agent may call while it carries out a
// plan: reading, writing, listing and searching files, and running allowed
// commands and the workspace's tests. Every tool works inside a [Sandbox]
// confined to one workspace root, so a path never leaves the workspace (no
// "..", no absolute path outside it, no symlink escape) and a command never
// runs through a shell. The sandbox confines paths the tools are given, not
// what a started program does: run_command and run_tests run in the root
// but with the worker's user and its reach, so the allowlist
// ([Config.AllowCommands], [Config.AllowTests]) and the operating system
// are the boundary for commands.
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
