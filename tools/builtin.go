package tools

import "fmt"

// Builtin returns a registry holding the built-in tools configured by cfg
// (zero limits take their defaults): read_file, write_file, delete_file,
// list_files, search_files, search_code, run_command, run_tests and
// finish_plan.
func Builtin(cfg Config) *Registry {
	cfg = cfg.withDefaults()
	r := NewRegistry()
	for _, mk := range []func(Config) Tool{
		readFileTool, writeFileTool, deleteFileTool,
		listFilesTool, searchFilesTool, searchCodeTool,
		runCommandTool, runTestsTool, finishPlanTool,
	} {
		if err := r.Register(mk(cfg)); err != nil {
			panic(fmt.Sprintf("built-in tools: %v", err)) // names are constants: a bug, not input
		}
	}
	return r
}
