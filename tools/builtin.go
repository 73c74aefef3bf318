package tools

import "fmt"

// Builtin returns a registry holding the built-in tools configured by cfg
// (zero limits take their defaults): read_file, write_file, delete_file,
// list_files, search_files, search_code, run_command, run_tests and
// finish_plan. The command sandbox is detected when the first command
// runs; a worker checks it at start with [DetectCommandSandbox].
func Builtin(cfg Config) *Registry {
	cfg = cfg.withDefaults()
	// run_command and run_tests share one runner, which detects the
	// command sandbox on first use and keeps it.
	run := runner{cfg: cfg, sandbox: &sandboxCache{}}
	r := NewRegistry()
	for _, t := range []Tool{
		readFileTool(cfg), writeFileTool(cfg), deleteFileTool(cfg),
		listFilesTool(cfg), searchFilesTool(cfg), searchCodeTool(cfg),
		runCommandTool(cfg, run), runTestsTool(cfg, run), finishPlanTool(cfg),
	} {
		if err := r.Register(t); err != nil {
			panic(fmt.Sprintf("built-in tools: %v", err)) // names are constants: a bug, not input
		}
	}
	return r
}
