package plan

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestMatchGlob(t *testing.T) {
	for _, tc := range []struct {
		pattern, name string
		want          bool
	}{
		{"run_command", "run_command", true},
		{"run_command", "run_commands", false},
		{"mcp__github__*", "mcp__github__create_pull_request", true},
		{"mcp__github__*", "mcp__gitlab__create", false},
		{"*", "", true},
		{"*", "anything/with/slashes", true},
		{"src/*", "src/a/b.go", true},
		{"?", "", false},
		{"?", "é", true},
		{"push*", "push origin main", true},
		{"push*", "pull", false},
		{"*--force*", "push --force origin", true},
		{"*--force*", "push origin", false},
		{`a\*`, "a*", true},
		{`a\*`, "ab", false},
		{`a\?b`, "a?b", true},
		{"a*b*c", "aXbYbZc", true},
		{"a*b*c", "aXbYbZ", false},
		{"**", "x", true},
	} {
		if got := MatchGlob(tc.pattern, tc.name); got != tc.want {
			t.Errorf("MatchGlob(%q, %q) = %v, want %v", tc.pattern, tc.name, got, tc.want)
		}
	}
}

// TestMatchGlobIsNotExponential: a pattern built to make a backtracking
// matcher explode answers at once.
func TestMatchGlobIsNotExponential(t *testing.T) {
	pattern := strings.Repeat("a*", 100) + "b"
	name := strings.Repeat("a", 16<<10)
	if MatchGlob(pattern, name) {
		t.Fatal("matched a name without b")
	}
}

func TestDecideFirstMatchAndDefaults(t *testing.T) {
	rules := ApprovalRules{
		{Match: "mcp__github__get_*", Action: ApprovalAllow},
		{Match: "mcp__github__*", Action: ApprovalAsk},
		{Match: "run_command", Args: map[string]string{"command": "git", "args": "push*"}, Action: ApprovalAsk},
		{Match: "delete_file", Args: map[string]string{"path": ".git/*"}, Action: ApprovalDeny},
	}
	if err := rules.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		call       ToolCall
		want       ApprovalAction
		wantReason string
	}{
		{ToolCall{Tool: "mcp__github__get_issue"}, ApprovalAllow, "rule 1 (mcp__github__get_* -> allow)"},
		{ToolCall{Tool: "mcp__github__create_pull_request"}, ApprovalAsk, "rule 2"},
		{ToolCall{Tool: "run_command", Args: json.RawMessage(`{"command":"git","args":["push","origin"]}`)}, ApprovalAsk, "rule 3"},
		{ToolCall{Tool: "run_command", Args: json.RawMessage(`{"command":"git","args":["status"]}`)}, ApprovalAllow, "default: built-in tool"},
		{ToolCall{Tool: "run_command", Args: json.RawMessage(`{"command":"git"}`)}, ApprovalAllow, "default: built-in tool"},
		{ToolCall{Tool: "delete_file", Args: json.RawMessage(`{"path":".git/config"}`)}, ApprovalDeny, "rule 4"},
		{ToolCall{Tool: "delete_file", Args: json.RawMessage(`not json`)}, ApprovalAllow, "default: built-in tool"},
		{ToolCall{Tool: "read_file"}, ApprovalAllow, "default: built-in read-only tool"},
		{ToolCall{Tool: "mcp__memory__create_entities"}, ApprovalAsk, "default: MCP tool not marked read-only"},
		{ToolCall{Tool: "mcp__memory__read_graph", ReadOnly: true}, ApprovalAllow, "default: tool marked read-only"},
		{ToolCall{Tool: "my_tool"}, ApprovalAsk, "default: tool not marked read-only"},
	} {
		got, reason := rules.Decide(tc.call)
		if got != tc.want || !strings.HasPrefix(reason, tc.wantReason) {
			t.Errorf("%s %s: got %s (%s), want %s (%s…)", tc.call.Tool, tc.call.Args, got, reason, tc.want, tc.wantReason)
		}
	}
}

// TestDecideRuleOverridesReadOnly: a rule decides before the defaults,
// so a worker can gate even a tool that says it only reads.
func TestDecideRuleOverridesReadOnly(t *testing.T) {
	rules := ApprovalRules{{Match: "mcp__db__*", Action: ApprovalDeny}}
	if got, _ := rules.Decide(ToolCall{Tool: "mcp__db__query", ReadOnly: true}); got != ApprovalDeny {
		t.Fatalf("got %s, want deny", got)
	}
}

func TestArgTextOfOtherValues(t *testing.T) {
	rules := ApprovalRules{{Match: "t", Args: map[string]string{"n": "4?", "o": `{"a":1,"b":2}`}, Action: ApprovalDeny}}
	got, _ := rules.Decide(ToolCall{Tool: "t", Args: json.RawMessage(`{"n": 42, "o": {"b": 2, "a": 1}}`)})
	if got != ApprovalDeny {
		t.Fatalf("numbers and objects match as compact JSON: got %s", got)
	}
}

func TestTightenNeverLoosens(t *testing.T) {
	worker := ApprovalRules{
		{Match: "mcp__github__*", Action: ApprovalAsk},
		{Match: "write_file", Action: ApprovalDeny},
	}
	plan := ApprovalRules{
		{Match: "*", Action: ApprovalAllow},
	}
	p := Tighten(worker, plan)
	for tool, want := range map[string]ApprovalAction{
		"mcp__github__merge": ApprovalAsk, "write_file": ApprovalDeny, "read_file": ApprovalAllow,
		"mcp__memory__write": ApprovalAsk,
	} {
		if got, reason := p.Decide(ToolCall{Tool: tool}); got != want {
			t.Errorf("%s: got %s (%s), want %s", tool, got, reason, want)
		}
	}
	plan = ApprovalRules{{Match: "run_command", Action: ApprovalAsk}, {Match: "mcp__github__*", Action: ApprovalDeny}}
	p = Tighten(worker, plan)
	got, reason := p.Decide(ToolCall{Tool: "run_command"})
	if got != ApprovalAsk || reason != "plan rule 1 (run_command -> ask)" {
		t.Errorf("plan tightens run_command: got %s (%s)", got, reason)
	}
	got, reason = p.Decide(ToolCall{Tool: "mcp__github__merge"})
	if got != ApprovalDeny || !strings.HasPrefix(reason, "plan rule 2") {
		t.Errorf("plan tightens mcp__github__*: got %s (%s)", got, reason)
	}
	got, reason = p.Decide(ToolCall{Tool: "write_file"})
	if got != ApprovalDeny || !strings.HasPrefix(reason, "worker rule 2") {
		t.Errorf("worker's deny stands: got %s (%s)", got, reason)
	}
}

// TestTightenProperty: over random rule lists and calls, the policy's
// decision is never looser than the worker's alone nor than the plan's
// first match, and equals the stricter of the two.
func TestTightenProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		worker, plan := randomRules(r), randomRules(r)
		call := randomCall(r)
		checkTighten(t, worker, plan, call)
	}
}

// FuzzTighten explores the same property from bytes.
func FuzzTighten(f *testing.F) {
	f.Add(uint64(1), uint64(2))
	f.Add(uint64(0), uint64(0))
	f.Add(uint64(42), uint64(7))
	f.Fuzz(func(t *testing.T, a, b uint64) {
		r := rand.New(rand.NewPCG(a, b))
		checkTighten(t, randomRules(r), randomRules(r), randomCall(r))
	})
}

func checkTighten(t *testing.T, worker, plan ApprovalRules, call ToolCall) {
	t.Helper()
	w, _ := worker.Decide(call)
	got, reason := Tighten(worker, plan).Decide(call)
	want := w
	if i, ok := plan.first(call); ok {
		want = Stricter(w, plan[i].Action)
	}
	if got != want || Stricter(got, w) != got {
		t.Fatalf("worker %v plan %v call %v: got %s (%s), want %s", worker, plan, call, got, reason, want)
	}
	if reason == "" {
		t.Fatal("no reason")
	}
}

var (
	ruleTools = []string{"*", "run_command", "read_file", "write_file", "mcp__github__*", "mcp__*", "mcp__github__get_*", "mcp__memory__read_graph"}
	callTools = []string{"run_command", "read_file", "write_file", "mcp__github__get_issue", "mcp__github__merge", "mcp__memory__read_graph", "custom"}
	actions   = []ApprovalAction{ApprovalAllow, ApprovalAsk, ApprovalDeny}
)

func randomRules(r *rand.Rand) ApprovalRules {
	var rs ApprovalRules
	for range r.IntN(5) {
		rule := ApprovalRule{Match: ruleTools[r.IntN(len(ruleTools))], Action: actions[r.IntN(3)]}
		if r.IntN(3) == 0 {
			rule.Args = map[string]string{"command": []string{"git", "g*", "*"}[r.IntN(3)]}
		}
		rs = append(rs, rule)
	}
	return rs
}

func randomCall(r *rand.Rand) ToolCall {
	args := []string{``, `{"command":"git"}`, `{"command":"go"}`, `[1]`}[r.IntN(4)]
	return ToolCall{Tool: callTools[r.IntN(len(callTools))], Args: json.RawMessage(args), ReadOnly: r.IntN(2) == 0}
}

func TestApprovalRulesValidate(t *testing.T) {
	many := make(ApprovalRules, MaxApprovalRules+1)
	for i := range many {
		many[i] = ApprovalRule{Match: "x", Action: ApprovalAsk}
	}
	for _, tc := range []struct {
		rules ApprovalRules
		want  string
	}{
		{ApprovalRules{{Match: "x", Action: "maybe"}}, `rule 1 ("x"): action "maybe": want allow, ask or deny`},
		{ApprovalRules{{Match: "x", Action: ApprovalAsk}, {Action: ApprovalAsk}}, "rule 2 (\"\"): match is empty"},
		{ApprovalRules{{Match: `run\`, Action: ApprovalAsk}}, "ends in a lone backslash"},
		{ApprovalRules{{Match: strings.Repeat("a", MaxRulePatternBytes+1), Action: ApprovalAsk}}, "match is 257 bytes: at most 256"},
		{ApprovalRules{{Match: "x", Args: map[string]string{"": "y"}, Action: ApprovalAsk}}, "argument name"},
		{ApprovalRules{{Match: "x", Args: map[string]string{"c": strings.Repeat("a", 300)}, Action: ApprovalAsk}}, `args["c"] is 300 bytes`},
		{many, "101 rules: at most 100"},
	} {
		err := tc.rules.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("got %v, want %q", err, tc.want)
		}
	}
	if err := (ApprovalRules{{Match: `a\\`, Action: ApprovalDeny}}).Validate(); err != nil {
		t.Errorf("an escaped backslash is fine: %v", err)
	}
}

func TestArgsDigestIsCanonical(t *testing.T) {
	a := ArgsDigest(json.RawMessage(`{"b": [1, 2], "a": {"y": "<x>", "x": 1.50}}`))
	b := ArgsDigest(json.RawMessage("{\n  \"a\":{\"x\":1.50,\"y\":\"<x>\"},\"b\":[1,2]}"))
	if a != b || !strings.HasPrefix(a, "sha256:") || len(a) != len("sha256:")+64 {
		t.Fatalf("key order and spacing change the digest: %s %s", a, b)
	}
	for _, other := range []string{`{"b":[2,1],"a":{"x":1.50,"y":"<x>"}}`, `{"b":[1,2],"a":{"x":1.5,"y":"<x>"}}`, `not json`} {
		if ArgsDigest(json.RawMessage(other)) == a {
			t.Errorf("%s digests like the original", other)
		}
	}
	if ArgsDigest(nil) != ArgsDigest(json.RawMessage(`null`)) || ArgsDigest(nil) != ArgsDigest(json.RawMessage(` {} `)) {
		t.Error("empty, null and {} digest differently")
	}
	if got := string(CanonicalArgs(json.RawMessage(`{ "b":1, "a":"<&>" }`))); got != `{"a":"<&>","b":1}` {
		t.Errorf("canonical form: %s", got)
	}
	if ArgsDigest(json.RawMessage(`{"a":1} {"b":2}`)) == ArgsDigest(json.RawMessage(`{"a":1}`)) {
		t.Error("trailing data is ignored")
	}
}

// FuzzArgsDigest: digesting never panics, and re-encoding canonical JSON
// keeps its digest.
func FuzzArgsDigest(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":[1,{"b":null}]}`, `"x"`, `1e400`, `{"a":1,"a":2}`, ``, `[`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		d := ArgsDigest(json.RawMessage(in))
		if c := CanonicalArgs(json.RawMessage(in)); json.Valid(c) && ArgsDigest(c) != d {
			t.Fatalf("canonical form of %q digests differently", in)
		}
	})
}
