package plan

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// ApprovalAction is what an approval rule does with a tool call.
type ApprovalAction string

// Approval actions, from the least strict to the strictest.
const (
	// ApprovalAllow runs the call.
	ApprovalAllow ApprovalAction = "allow"
	// ApprovalAsk holds the call's step until a person approves or
	// denies it.
	ApprovalAsk ApprovalAction = "ask"
	// ApprovalDeny refuses the call; the agent sees why.
	ApprovalDeny ApprovalAction = "deny"
)

// strictness orders the actions: deny > ask > allow. An unknown action
// counts as the strictest, so a rule nobody validated never loosens.
func (a ApprovalAction) strictness() int {
	switch a {
	case ApprovalAllow:
		return 0
	case ApprovalAsk:
		return 1
	default:
		return 2
	}
}

// Stricter returns the stricter of a and b.
func Stricter(a, b ApprovalAction) ApprovalAction {
	if b.strictness() > a.strictness() {
		return b
	}
	return a
}

// Bounds of approval rules: they travel in a plan's start request and so
// in its history, and each tool call is matched against all of them.
const (
	// MaxApprovalRules is the most rules one rule list may hold.
	MaxApprovalRules = 100
	// MaxRulePatternBytes bounds a rule's tool pattern and each of its
	// argument patterns.
	MaxRulePatternBytes = 256
	// MaxRuleArgs is the most argument patterns one rule may hold.
	MaxRuleArgs = 8
)

// ApprovalRule decides the tool calls it matches. Match is a glob over
// the tool's name (see [MatchGlob]): "run_command", "mcp__github__*".
// Args, when set, narrows the rule to calls whose named arguments all
// match their globs: the argument's value when it is a string, its items
// joined by one space when it is an array of strings, its compact JSON
// otherwise. A call without a named argument does not match the rule.
type ApprovalRule struct {
	Match  string            `json:"match"`
	Args   map[string]string `json:"args,omitempty"`
	Action ApprovalAction    `json:"action"`
}

// ApprovalRules is an ordered rule list: the first rule that matches a
// call decides it.
type ApprovalRules []ApprovalRule

// ToolCall is a call the rules decide: the tool's name, its arguments
// (a JSON object) and whether the tool declares it only reads (the
// built-in read-only tools, an MCP tool's readOnlyHint).
type ToolCall struct {
	Tool     string          `json:"tool"`
	Args     json.RawMessage `json:"args,omitempty"`
	ReadOnly bool            `json:"readOnly,omitempty"`
}

// MCPToolPrefix starts the name of every tool an MCP server provides.
const MCPToolPrefix = "mcp__"

// ReadOnlyTools returns the built-in tools that only read the workspace.
func ReadOnlyTools() []string {
	return []string{ToolListFiles, ToolReadFile, ToolSearchCode, ToolSearchFiles}
}

// Validate reports every problem of the list at once, each naming the
// rule by its number (1 is the first): too many rules, an empty or
// malformed pattern, a pattern longer than MaxRulePatternBytes, an
// unknown action.
func (rs ApprovalRules) Validate() error {
	var errs []string
	if len(rs) > MaxApprovalRules {
		errs = append(errs, fmt.Sprintf("%d rules: at most %d", len(rs), MaxApprovalRules))
	}
	for i, r := range rs {
		if err := r.check(); err != nil {
			errs = append(errs, fmt.Sprintf("rule %d (%q): %v", i+1, TruncateBytes(r.Match, 64), err))
		}
		if i >= MaxApprovalRules {
			break
		}
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "; "))
	}
	return nil
}

// check reports the first problem of one rule.
func (r ApprovalRule) check() error {
	switch r.Action {
	case ApprovalAllow, ApprovalAsk, ApprovalDeny:
	default:
		return fmt.Errorf("action %q: want allow, ask or deny", TruncateBytes(string(r.Action), 64))
	}
	if r.Match == "" {
		return errors.New("match is empty: name a tool or a glob such as mcp__github__*")
	}
	if err := checkGlob("match", r.Match); err != nil {
		return err
	}
	if len(r.Args) > MaxRuleArgs {
		return fmt.Errorf("args has %d patterns: at most %d", len(r.Args), MaxRuleArgs)
	}
	for _, name := range sortedKeys(r.Args) {
		if name == "" || len(name) > MaxIDBytes {
			return fmt.Errorf("args: argument name %q: want 1 to %d bytes", TruncateBytes(name, 64), MaxIDBytes)
		}
		if err := checkGlob(fmt.Sprintf("args[%q]", name), r.Args[name]); err != nil {
			return err
		}
	}
	return nil
}

// checkGlob refuses a pattern beyond MaxRulePatternBytes or one that
// ends in an escape with nothing to escape.
func checkGlob(field, pattern string) error {
	if len(pattern) > MaxRulePatternBytes {
		return fmt.Errorf("%s is %d bytes: at most %d", field, len(pattern), MaxRulePatternBytes)
	}
	if strings.HasSuffix(pattern, `\`) && (len(pattern)-len(strings.TrimRight(pattern, `\`)))%2 == 1 {
		return fmt.Errorf("%s %q ends in a lone backslash", field, TruncateBytes(pattern, 64))
	}
	return nil
}

// Decide returns what the rules do with call and why: the first rule
// that matches, or the defaults when none does (see [DefaultApproval]).
// The reason names the rule by its number and pattern, or the default.
func (rs ApprovalRules) Decide(call ToolCall) (ApprovalAction, string) {
	if i, ok := rs.first(call); ok {
		return rs[i].Action, fmt.Sprintf("rule %d (%s)", i+1, rs[i].describe())
	}
	return DefaultApproval(call)
}

// first returns the index of the first rule matching call.
func (rs ApprovalRules) first(call ToolCall) (int, bool) {
	var args map[string]json.RawMessage
	decoded := false
	for i, r := range rs {
		if !MatchGlob(r.Match, call.Tool) {
			continue
		}
		if len(r.Args) > 0 && !decoded {
			decoded = true
			// Arguments that are not an object match no argument pattern.
			_ = json.Unmarshal(call.Args, &args) //workflowcheck:ignore (decoding the arguments only)
		}
		if r.matchesArgs(args) {
			return i, true
		}
	}
	return 0, false
}

// matchesArgs reports whether every argument pattern of r matches.
func (r ApprovalRule) matchesArgs(args map[string]json.RawMessage) bool {
	for _, name := range sortedKeys(r.Args) {
		v, ok := args[name]
		if !ok || !MatchGlob(r.Args[name], argText(v)) {
			return false
		}
	}
	return true
}

// describe renders a rule for a reason: its pattern, argument patterns
// and action.
func (r ApprovalRule) describe() string {
	var b strings.Builder
	b.WriteString(r.Match)
	for _, name := range sortedKeys(r.Args) {
		b.WriteString(fmt.Sprintf(" %s=%q", name, r.Args[name]))
	}
	b.WriteString(fmt.Sprintf(" -> %s", r.Action))
	return b.String()
}

// argText is the text an argument pattern is matched against: a string
// as it is, an array of strings joined by one space (so that run_command's
// args ["push", "origin"] reads "push origin"), anything else as compact
// JSON.
func argText(v json.RawMessage) string {
	var s string
	//workflowcheck:ignore (decoding the argument only)
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	var list []string
	//workflowcheck:ignore (decoding the argument only)
	if json.Unmarshal(v, &list) == nil {
		return strings.Join(list, " ")
	}
	return string(canonicalJSON(v))
}

// DefaultApproval decides a call no rule matched: the built-in tools are
// allowed (the read-only ones and the others: the sandbox and the
// command allow-list bound them), a tool marked read-only is allowed, and
// every other tool, an MCP tool among them, asks a person.
func DefaultApproval(call ToolCall) (ApprovalAction, string) {
	switch {
	case slices.Contains(ReadOnlyTools(), call.Tool):
		return ApprovalAllow, "default: built-in read-only tool"
	case slices.Contains(BuiltinTools(), call.Tool):
		return ApprovalAllow, "default: built-in tool"
	case call.ReadOnly:
		return ApprovalAllow, "default: tool marked read-only"
	case strings.HasPrefix(call.Tool, MCPToolPrefix):
		return ApprovalAsk, "default: MCP tool not marked read-only"
	default:
		return ApprovalAsk, "default: tool not marked read-only"
	}
}

// ApprovalPolicy is the worker's rules tightened by a plan's: see
// [Tighten]. The zero value decides by the defaults alone.
type ApprovalPolicy struct {
	Worker ApprovalRules `json:"worker,omitempty"`
	Plan   ApprovalRules `json:"plan,omitempty"`
}

// Tighten combines the worker's rules with a plan's so that a plan can
// make a call stricter, never looser: the worker's rules decide (their
// first match or the defaults), the plan's first match decides too, and
// the stricter of the two wins (deny > ask > allow). A plan rule that
// allows what the worker asks about changes nothing; a call no plan rule
// matches is the worker's to decide.
func Tighten(worker, plan ApprovalRules) ApprovalPolicy {
	return ApprovalPolicy{Worker: worker, Plan: plan}
}

// Decide returns what the policy does with call and why.
func (p ApprovalPolicy) Decide(call ToolCall) (ApprovalAction, string) {
	action, reason := p.Worker.Decide(call)
	if len(p.Worker) > 0 && !strings.HasPrefix(reason, "default:") {
		reason = "worker " + reason
	}
	i, ok := p.Plan.first(call)
	if !ok || p.Plan[i].Action.strictness() <= action.strictness() {
		return action, reason
	}
	return p.Plan[i].Action, fmt.Sprintf("plan rule %d (%s)", i+1, p.Plan[i].describe())
}

// ArgsDigest returns "sha256:" and the hex SHA-256 of args as canonical
// JSON: object keys sorted, no insignificant whitespace, numbers as
// written. Equal arguments give equal digests whatever their key order
// or spacing; empty arguments and null are digested as {}. Arguments that
// are not JSON are digested as they are, so they still differ from any
// other.
func ArgsDigest(args json.RawMessage) string {
	sum := sha256.Sum256(canonicalJSON(args))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// CanonicalArgs returns args as canonical JSON (see [ArgsDigest]).
func CanonicalArgs(args json.RawMessage) json.RawMessage { return canonicalJSON(args) }

// canonicalJSON re-encodes raw with sorted keys and no spacing; raw that
// is not one JSON value comes back trimmed but unchanged.
func canonicalJSON(raw json.RawMessage) []byte {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(t))
	dec.UseNumber()
	var v any
	//workflowcheck:ignore (decoding the arguments only)
	if err := dec.Decode(&v); err != nil {
		return t
	}
	//workflowcheck:ignore (reading the end of the arguments only)
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return t // data after the value
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	// Object keys come out sorted: the same bytes on every run.
	//workflowcheck:ignore (encoding to a buffer only)
	if err := enc.Encode(v); err != nil {
		return t
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

// MatchGlob reports whether name matches pattern: '*' matches any run of
// characters ('/' included), '?' any one character, a backslash makes
// the next character literal; everything else matches itself. Matching
// is linear in practice and never worse than len(pattern)*len(name).
func MatchGlob(pattern, name string) bool {
	p, n := []rune(pattern), []rune(name)
	pi, ni := 0, 0
	star, mark := -1, 0
	for ni < len(n) {
		if pi < len(p) {
			switch c := p[pi]; {
			case c == '*':
				star, mark = pi, ni
				pi++
				continue
			case c == '?':
				pi, ni = pi+1, ni+1
				continue
			case c == '\\' && pi+1 < len(p):
				if p[pi+1] == n[ni] {
					pi, ni = pi+2, ni+1
					continue
				}
			case c == n[ni]:
				pi, ni = pi+1, ni+1
				continue
			}
		}
		if star < 0 {
			return false
		}
		// Let the last star take one more character and try again.
		mark++
		pi, ni = star+1, mark
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}

// sortedKeys returns m's keys, sorted, so that errors and reasons read
// the same on every run.
func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	//workflowcheck:ignore (the keys are sorted below)
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
