package plan

// Tool names the product provides, as templates, tool steps and agent
// steps name them. The tools package registers a tool under each of these
// names and no other (its tests hold it to BuiltinTools).
const (
	ToolReadFile    = "read_file"
	ToolWriteFile   = "write_file"
	ToolDeleteFile  = "delete_file"
	ToolListFiles   = "list_files"
	ToolSearchFiles = "search_files"
	ToolSearchCode  = "search_code"
	ToolRunCommand  = "run_command"
	ToolRunTests    = "run_tests"
	ToolFinishPlan  = "finish_plan"
)

// BuiltinTools returns the names of the built-in tools, sorted; each call
// returns a fresh slice. Pass it as Limits.Tools so that validation refuses
// a step naming a tool that does not exist.
func BuiltinTools() []string {
	return []string{
		ToolDeleteFile, ToolFinishPlan, ToolListFiles, ToolReadFile, ToolRunCommand,
		ToolRunTests, ToolSearchCode, ToolSearchFiles, ToolWriteFile,
	}
}
