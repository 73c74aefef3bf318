package offline

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/planmode/planmode/plan"
)

// finishStep is the tool by which an agent step ends in the turn of its
// last tool calls, with its answer; maxAnswerBytes is under the bound the
// worker puts on that answer.
const (
	finishStep     = "finish_step"
	maxAnswerBytes = 3500
)

// defaultToolRounds is how many tool rounds the offline brain makes in an
// agent step before it answers, whatever the step asks.
const defaultToolRounds = 3

// stepMarkers introduce the step's own prompt in execute and agent
// requests: the embedded templates' line "Task:", or the longer one of
// earlier templates (an operator's own may still use it).
var stepMarkers = []string{"Your task for this step:", "\nTask:\n"}

var (
	// stepLine is the step context's "Step s2 (2 of 3): Title", or
	// earlier templates' "You are on step 2 of 3: Title (id s2)".
	stepLine = regexp.MustCompile(`(?m)^(?:Step \S+ \(\d+ of \d+\): (.+?)|You are on step \d+ of \d+: (.+?) \(id [^)]*\))\s*$`)
	// lastTurn is how the agent prompt says the step has no iteration
	// left after this one.
	lastTurn = regexp.MustCompile(`(?i)this is your last iteration`)
	// writeVerbs, leading a step's instruction, mark a step that changes
	// the workspace; "write" anywhere does too.
	writeVerbs = regexp.MustCompile(`(?i)^\s*(write|create|add|update|implement|fix|generate|document|modify|change|edit|refactor|apply|save|record|rename)\b|\bwrite\b`)
	// searchVerbs mark a step that looks for something in the code.
	searchVerbs = regexp.MustCompile(`(?i)\b(find|search|locate|look for|grep|where)`)
	// identifier matches a code-like word worth searching for.
	identifier = regexp.MustCompile(`\b([A-Z][a-z0-9]+[A-Z]\w*|[a-z]+[A-Z]\w*|\w+_\w+|[A-Z][a-z]{2,})\b`)
	// testVerbs mark a step that asks for the tests to run.
	testVerbs = regexp.MustCompile(`(?i)\b(test|verify)`)
	// packageClause finds a Go file's package name.
	packageClause = regexp.MustCompile(`(?m)^package\s+(\w+)`)
)

// step is what execute and agent requests say about the step.
type step struct {
	title  string
	prompt string
	// intent is the prompt's own instruction: the text before the goal
	// that prompts append after a colon.
	intent string
}

// readStep reads the step's title and prompt.
func readStep(v view) step {
	var s step
	for _, m := range stepMarkers {
		if s.prompt = after("\n"+v.user, m, false); s.prompt != "" {
			break
		}
	}
	if s.prompt == "" {
		s.prompt = strings.TrimSpace(v.prompt)
	}
	if m := stepLine.FindStringSubmatch(v.user); m != nil {
		s.title = m[1] + m[2]
	}
	if s.title == "" {
		s.title = plan.Truncate(firstLine(s.prompt), 60)
	}
	s.intent = s.prompt
	if i := strings.Index(s.prompt, ":"); i > 10 {
		s.intent = s.prompt[:i]
	}
	return s
}

// execute answers an llm step with a short, honest note.
func (b *OfflineBrain) execute(v view) Reply {
	s := readStep(v)
	return Reply{Content: fmt.Sprintf("Step “%s” was handled by the offline model.\n\nAsked: %s\n\n"+
		"Result: the offline model does not analyse or generate content, so this step records the request only. "+
		"Configure an LLM provider for a real answer.\n\n%s",
		s.title, plan.Truncate(oneLine(s.prompt), 300), OfflineNotice)}
}

// agent answers one agent turn: the next tool calls, or the final account
// once the step's intent is served, no tool is offered, it is the
// last iteration or the rounds (three by default) are spent.
func (b *OfflineBrain) agent(v view) Reply {
	s := readStep(v)
	if len(v.tools) == 0 || len(v.rounds) >= b.maxRounds || lastTurn.MatchString(v.system) {
		return b.agentFinal(v, s)
	}
	for _, stage := range []func(view, step) []ToolCall{explore, read} {
		if calls := stage(v, s); len(calls) > 0 {
			return Reply{ToolCalls: calls}
		}
	}
	if calls := act(v, s); len(calls) > 0 {
		// The step's work ends with these calls: when finish_step is
		// offered, the account goes with them and the step needs no turn
		// of its own to give it (if a call fails, the workflow refuses the
		// finish and the next turn answers as before).
		if v.hasTool(finishStep) {
			calls = append(calls, call(finishStep, map[string]any{"answer": account(v, s, calls)}))
		}
		return Reply{ToolCalls: calls}
	}
	return b.agentFinal(v, s)
}

// explore lists the workspace and, when the step looks for something,
// searches the code, unless that was done.
func explore(v view, s step) []ToolCall {
	if len(v.called("list_files")) > 0 || len(v.called("search_code")) > 0 {
		return nil
	}
	var calls []ToolCall
	if v.hasTool("list_files") {
		calls = append(calls, call("list_files", map[string]any{"recursive": true}))
	}
	if v.hasTool("search_code") && searchVerbs.MatchString(s.intent) {
		if word := searchWord(s.prompt); word != "" {
			calls = append(calls, call("search_code", map[string]any{"pattern": regexp.QuoteMeta(word)}))
		}
	}
	return calls
}

// read reads up to two files: those the step names that exist, a Go
// source file when the step names a new one (to learn its package), else
// the most telling file of the listing.
func read(v view, s step) []ToolCall {
	if !v.hasTool("read_file") || len(v.called("read_file")) > 0 {
		return nil
	}
	listed := listedFiles(v)
	var paths []string
	newGo := false
	for _, f := range files(s.prompt) {
		switch {
		case len(listed) == 0 || contains(listed, f):
			paths = append(paths, f)
		case strings.HasSuffix(f, ".go"):
			newGo = true
		}
	}
	if newGo {
		if f := goSource(listed); f != "" && !contains(paths, f) {
			paths = append(paths, f)
		}
	}
	if len(paths) == 0 {
		if f := telling(listed); f != "" {
			paths = append(paths, f)
		}
	}
	var calls []ToolCall
	for _, p := range paths[:min(len(paths), 2)] {
		calls = append(calls, call("read_file", map[string]any{"path": p}))
	}
	return calls
}

// act writes a file when the step asks for a change, and runs the tests
// when it asks for them, unless that was done.
func act(v view, s step) []ToolCall {
	var calls []ToolCall
	if v.hasTool("write_file") && len(v.called("write_file")) == 0 && writeVerbs.MatchString(s.intent) {
		path, content := writeTarget(v, s)
		calls = append(calls, call("write_file", map[string]any{"path": path, "content": content}))
	}
	if v.hasTool("run_tests") && len(v.called("run_tests")) == 0 && testVerbs.MatchString(s.intent) {
		calls = append(calls, call("run_tests", map[string]any{}))
	}
	return calls
}

// call builds a tool call with JSON arguments.
func call(name string, args map[string]any) ToolCall {
	b, err := json.Marshal(args)
	if err != nil {
		b = []byte("{}")
	}
	return ToolCall{Name: name, Arguments: string(b)}
}

// searchWord picks the first code-like word of the prompt.
func searchWord(prompt string) string {
	for _, m := range identifier.FindAllString(prompt, -1) {
		switch strings.ToLower(m) {
		case "find", "search", "locate", "quote", "read", "write", "the", "this", "that", "where", "look":
			continue
		}
		return m
	}
	return ""
}

// listedFiles returns the files (not directories) list_files returned.
func listedFiles(v view) []string {
	var out []string
	for _, c := range v.called("list_files") {
		for _, l := range strings.Split(c.output, "\n") {
			l = strings.TrimSpace(l)
			if l == "" || strings.HasSuffix(l, "/") || strings.HasPrefix(l, "[") || strings.HasPrefix(l, "(") {
				continue
			}
			out = append(out, l)
		}
	}
	return out
}

// telling picks the file that says most about a workspace: a README, else
// the first source file that is not a test, else the first file.
func telling(listed []string) string {
	for _, f := range listed {
		if strings.HasPrefix(strings.ToLower(baseName(f)), "readme") {
			return f
		}
	}
	if f := goSource(listed); f != "" {
		return f
	}
	if len(listed) > 0 {
		return listed[0]
	}
	return ""
}

// goSource returns the first Go file that is not a test.
func goSource(listed []string) string {
	for _, f := range listed {
		if strings.HasSuffix(f, ".go") && !strings.HasSuffix(f, "_test.go") {
			return f
		}
	}
	return ""
}

// writeTarget chooses the file to write and its content: a new file the
// step names (a Go file only when its package is known), an existing
// markdown or text file with a section appended, else NOTES.md. It never
// overwrites existing code.
func writeTarget(v view, s step) (string, string) {
	listed := listedFiles(v)
	reads := map[string]string{}
	for _, c := range v.called("read_file") {
		if p, ok := c.args["path"].(string); ok {
			reads[p] = c.output
		}
	}
	note := noteBody(s, listed)
	for _, f := range files(s.prompt) {
		old, wasRead := reads[f]
		exists := wasRead || contains(listed, f)
		switch ext := f[strings.LastIndex(f, ".")+1:]; {
		case (ext == "md" || ext == "txt") && !exists:
			return f, "# " + s.title + "\n\n" + note
		case (ext == "md" || ext == "txt") && wasRead:
			return f, strings.TrimRight(old, "\n") + "\n\n## " + s.title + "\n\n" + note
		case ext == "go" && !exists:
			if pkg := goPackage(v.called("read_file")); pkg != "" {
				return f, "// Code written by planmode's offline model — no LLM provider was configured.\n" +
					"// Step: " + oneLine(s.title) + "\n\npackage " + pkg + "\n"
			}
		}
	}
	return "NOTES.md", "# Notes\n\n## " + s.title + "\n\n" + note
}

// noteBody is the text the offline brain writes into a note.
func noteBody(s step, listed []string) string {
	var b strings.Builder
	b.WriteString("Written by planmode's offline model — no LLM provider was configured.\n\n")
	b.WriteString("Task: " + plan.Truncate(oneLine(s.prompt), 500) + "\n")
	if len(listed) > 0 {
		b.WriteString("\nThe workspace holds " + fmt.Sprint(len(listed)) + " files, among them: " +
			strings.Join(listed[:min(len(listed), 10)], ", ") + ".\n")
	}
	return b.String()
}

// goPackage returns the package of the first Go source file read.
func goPackage(reads []toolResult) string {
	for _, r := range reads {
		p, _ := r.args["path"].(string)
		if strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
			if m := packageClause.FindStringSubmatch(r.output); m != nil {
				return m[1]
			}
		}
	}
	return ""
}

// agentFinal is the agent step's final account of the tool results.
func (b *OfflineBrain) agentFinal(v view, s step) Reply {
	return Reply{Content: account(v, s, nil)}
}

// account sums up the step: the tools called in earlier rounds with their
// results, and those called now (pending) by name and argument.
func account(v view, s step, pending []ToolCall) string {
	var lines []string
	for _, r := range v.rounds {
		for _, c := range r.calls {
			lines = append(lines, "- "+describeCall(c))
		}
	}
	for _, c := range pending {
		var args map[string]any
		_ = json.Unmarshal([]byte(c.Arguments), &args) // our own calls: always an object
		lines = append(lines, "- "+c.Name+callArg(args)+": called with this account")
	}
	var out strings.Builder
	fmt.Fprintf(&out, "Step “%s” was carried out by the offline model.\n\n", s.title)
	if len(lines) == 0 {
		out.WriteString("No tools were called: the offline model cannot do this step's work itself.\n")
	} else {
		out.WriteString("Tools used:\n" + strings.Join(lines, "\n") + "\n")
	}
	out.WriteString("\n" + OfflineNotice)
	return plan.TruncateBytes(out.String(), maxAnswerBytes)
}

// callArg is the argument that names what a call worked on (" path" or
// " pattern"), or "".
func callArg(args map[string]any) string {
	for _, k := range []string{"path", "pattern"} {
		if s, ok := args[k].(string); ok && s != "" {
			return " " + s
		}
	}
	return ""
}

// describeCall sums up one tool call and its result in a line.
func describeCall(c toolResult) string {
	arg := callArg(c.args)
	out := strings.TrimSpace(c.output)
	switch {
	case out == "":
		return c.name + arg + ": no result"
	case c.name == "list_files":
		return fmt.Sprintf("%s%s: %d entries", c.name, arg, len(strings.Split(out, "\n")))
	case c.name == "read_file":
		return fmt.Sprintf("%s%s: %d lines, starting “%s”", c.name, arg, len(strings.Split(out, "\n")),
			plan.Truncate(firstLine(out), 80))
	}
	return c.name + arg + ": " + plan.Truncate(oneLine(out), 200)
}

// contains reports whether list holds s.
func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// baseName is the last element of a slash-separated path.
func baseName(p string) string { return p[strings.LastIndex(p, "/")+1:] }
