package offline

import (
	"encoding/json"
	"regexp"
	"sort"
	"strconv"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// view is what the offline brain reads from a request: the text of its
// system and user messages, the JSON objects embedded in them, the tools
// offered and the tool calls made so far with their results.
//
// The brain does not depend on one prompt wording. It looks for a value
// in labelled lines ("Goal: …"), in markdown sections ("## Goal" and the
// lines below) and in JSON objects embedded in the messages, in that
// order.
type view struct {
	system string
	user   string
	// prompt is the first user message: the task or step as asked.
	prompt  string
	objects []any
	tools   []string
	rounds  []toolRound
}

// toolRound is one assistant turn that called tools, and the results.
type toolRound struct {
	calls []toolResult
}

// toolResult is one tool call and what it returned ("" before it ran).
type toolResult struct {
	name   string
	args   map[string]any
	output string
}

// newView reads req.
func newView(req openai.ChatCompletionRequest) view {
	var v view
	var sys, user []string
	results := map[string]string{}
	for _, m := range req.Messages {
		text := messageText(m)
		switch m.Role {
		case openai.ChatMessageRoleSystem:
			sys = append(sys, text)
		case openai.ChatMessageRoleUser:
			user = append(user, text)
			if v.prompt == "" {
				v.prompt = text
			}
		case openai.ChatMessageRoleTool:
			results[m.ToolCallID] = text
		}
	}
	for _, m := range req.Messages {
		if m.Role != openai.ChatMessageRoleAssistant || len(m.ToolCalls) == 0 {
			continue
		}
		var r toolRound
		for _, tc := range m.ToolCalls {
			var args map[string]any
			_ = json.Unmarshal([]byte(tc.Function.Arguments), &args) // arguments we cannot read count as none
			r.calls = append(r.calls, toolResult{name: tc.Function.Name, args: args, output: results[tc.ID]})
		}
		v.rounds = append(v.rounds, r)
	}
	for _, t := range req.Tools {
		if t.Function != nil {
			v.tools = append(v.tools, t.Function.Name)
		}
	}
	v.system = strings.Join(sys, "\n\n")
	v.user = strings.Join(user, "\n\n")
	v.objects = embeddedJSON(v.user)
	return v
}

// text is every system and user message, for keyword tests.
func (v view) text() string { return v.system + "\n\n" + v.user }

// hasTool reports whether the request offers the tool.
func (v view) hasTool(name string) bool {
	for _, t := range v.tools {
		if t == name {
			return true
		}
	}
	return false
}

// called returns the calls made so far to the tool.
func (v view) called(name string) []toolResult {
	var out []toolResult
	for _, r := range v.rounds {
		for _, c := range r.calls {
			if c.name == name {
				out = append(out, c)
			}
		}
	}
	return out
}

// field returns the first value found for one of the names: a labelled
// line, a markdown section or a string in the embedded JSON.
func (v view) field(names ...string) string {
	for _, n := range names {
		if s := labelled(v.user, n); s != "" {
			return s
		}
	}
	for _, n := range names {
		if s := section(v.user, n); s != "" {
			return s
		}
	}
	for _, n := range names {
		if val, ok := jsonLookup(v.objects, n); ok {
			if s, ok := val.(string); ok && strings.TrimSpace(s) != "" {
				return strings.TrimSpace(s)
			}
		}
	}
	return ""
}

// labelled returns the value of a "name: value" line, the name matched
// case-insensitively and with list markers or emphasis around it allowed.
func labelled(text, name string) string {
	re := regexp.MustCompile(`(?im)^[\s>*_#-]*` + regexp.QuoteMeta(name) + `[*_]*\s*:[*_]*[ \t]*(\S.*)$`)
	m := re.FindStringSubmatch(text)
	if m == nil {
		return ""
	}
	return strings.TrimSpace(m[1])
}

// section returns the text under a markdown heading or a "name:" line
// that ends the line, up to the next blank line or heading.
func section(text, name string) string {
	lines := strings.Split(text, "\n")
	head := regexp.MustCompile(`(?i)^\s*(#+\s*)?` + regexp.QuoteMeta(name) + `\s*:?\s*$`)
	for i, l := range lines {
		if !head.MatchString(l) || (!strings.HasPrefix(strings.TrimSpace(l), "#") && !strings.HasSuffix(strings.TrimSpace(l), ":")) {
			continue
		}
		var body []string
		for _, b := range lines[i+1:] {
			t := strings.TrimSpace(b)
			if t == "" && len(body) > 0 || strings.HasPrefix(t, "#") {
				break
			}
			if t != "" {
				body = append(body, t)
			}
		}
		return strings.Join(body, "\n")
	}
	return ""
}

// embeddedJSON returns the JSON objects found in text, outermost first.
func embeddedJSON(text string) []any {
	var out []any
	for i := 0; i < len(text); i++ {
		if text[i] != '{' {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(text[i:]))
		var obj map[string]any
		if err := dec.Decode(&obj); err != nil {
			continue
		}
		out = append(out, obj)
		i += int(dec.InputOffset()) - 1
	}
	return out
}

// jsonLookup finds the first value under key (case-insensitive) in the
// objects, searching breadth first so that outer keys win.
func jsonLookup(objects []any, key string) (any, bool) {
	queue := append([]any(nil), objects...)
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		switch x := cur.(type) {
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if strings.EqualFold(k, key) {
					return x[k], true
				}
			}
			for _, k := range keys {
				queue = append(queue, x[k])
			}
		case []any:
			queue = append(queue, x...)
		}
	}
	return nil, false
}

// number returns the first integer found for one of the patterns' first
// group, or for the JSON keys, or def.
func (v view) number(def int, patterns []*regexp.Regexp, keys ...string) int {
	for _, re := range patterns {
		if m := re.FindStringSubmatch(v.user); m != nil {
			if n, err := strconv.Atoi(m[1]); err == nil {
				return n
			}
		}
	}
	for _, k := range keys {
		if val, ok := jsonLookup(v.objects, k); ok {
			if f, ok := val.(float64); ok {
				return int(f)
			}
		}
	}
	return def
}

// fileToken matches what looks like a workspace file path.
var fileToken = regexp.MustCompile(`(?:[\w.-]+/)*(?:[\w-][\w.-]*\.(?:go|mod|sum|md|txt|json|ya?ml|toml|js|ts|tsx|jsx|py|rb|rs|java|kt|c|h|cc|cpp|hpp|cs|php|sh|sql|html|css|proto|cfg|ini|env)|Makefile|Dockerfile|Gemfile)\b`)

// files returns the distinct file paths named in text, in order.
func files(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, f := range fileToken.FindAllString(text, -1) {
		f = strings.TrimPrefix(f, "./")
		if strings.HasPrefix(f, ".") || seen[f] {
			continue
		}
		seen[f] = true
		out = append(out, f)
	}
	return out
}

// workspaceFiles returns the files the request says the workspace holds:
// a JSON list under currentFiles or files, else every file named in the
// user messages.
func (v view) workspaceFiles() []string {
	for _, k := range []string{"currentFiles", "workspaceFiles", "files"} {
		if val, ok := jsonLookup(v.objects, k); ok {
			if list, ok := val.([]any); ok && len(list) > 0 {
				var out []string
				for _, x := range list {
					if s, ok := x.(string); ok {
						out = append(out, s)
					}
				}
				return out
			}
		}
	}
	return files(v.user)
}

// boolField reports the JSON boolean under key, if any.
func (v view) boolField(key string) (bool, bool) {
	val, ok := jsonLookup(v.objects, key)
	if !ok {
		return false, false
	}
	b, ok := val.(bool)
	return b, ok
}

// listAfter returns the items of the "- item" list that follows the first
// line starting with heading (case-insensitive), up to the first line that
// is not an item.
func listAfter(text, heading string) []string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if !strings.HasPrefix(strings.ToLower(strings.TrimSpace(l)), strings.ToLower(heading)) {
			continue
		}
		var items []string
		for _, it := range lines[i+1:] {
			t := strings.TrimSpace(it)
			item, ok := strings.CutPrefix(t, "- ")
			if !ok {
				break
			}
			items = append(items, strings.TrimSpace(item))
		}
		return items
	}
	return nil
}

// after returns the text after the first occurrence of marker
// (case-insensitive), trimmed; with untilBlank it stops at the first blank
// line after some text.
func after(text, marker string, untilBlank bool) string {
	i := strings.Index(strings.ToLower(text), strings.ToLower(marker))
	if i < 0 {
		return ""
	}
	rest := strings.TrimSpace(text[i+len(marker):])
	if untilBlank {
		if j := strings.Index(rest, "\n\n"); j >= 0 {
			rest = rest[:j]
		}
	}
	return strings.TrimSpace(rest)
}
