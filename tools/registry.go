package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/planmode/planmode/plan"
)

// Spec describes a tool to the LLM: its name, what it does and the JSON
// schema of its arguments. ReadOnly tools never change the workspace and
// are the only ones offered while planning and reflecting.
type Spec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	ReadOnly    bool            `json:"readOnly,omitempty"`
}

// Tool is a Spec and the function that runs it. Run returns a [*ToolError]
// for failures the agent should see and any other error for faults of the
// worker.
type Tool struct {
	Spec
	Run func(ctx context.Context, env Env, args json.RawMessage) (Result, error)
}

// Env is what a tool runs in: the workspace sandbox and a heartbeat to call
// while working for long (nil-safe through [Env.Beat]).
type Env struct {
	Root      *Sandbox
	Heartbeat func(details ...any)
	// PlanID and StepID name the call's plan and step, for logs.
	PlanID string
	StepID string
	// FullOutput, when set, receives a command's whole output as it runs,
	// beyond the output cap, so the caller can keep what the capped Output
	// leaves out. Its errors are ignored: it never stops a command.
	FullOutput io.Writer
	// MaxHeartbeatInterval, when set, is the longest a running command
	// goes between heartbeats, shorter than Config.HeartbeatInterval when
	// the activity's heartbeat timeout asks for it.
	MaxHeartbeatInterval time.Duration
}

// Beat records a heartbeat when Heartbeat is set.
func (e Env) Beat(details ...any) {
	if e.Heartbeat != nil {
		e.Heartbeat(details...)
	}
}

// Result is what a tool produced.
type Result struct {
	Output string
	// Truncated is set when Output was cut to the output cap.
	Truncated    bool
	FilesChanged []plan.FileChange
	CommandsRun  int
	// Exit asks to end the whole plan (finish_plan): the calling step
	// completes with ExitReason and the steps not yet started are skipped.
	Exit       bool
	ExitReason string
}

// Registry maps tool names to tools. It is safe for concurrent use.
type Registry struct {
	mu    sync.RWMutex
	tools map[string]Tool
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{tools: map[string]Tool{}}
}

// toolName is what OpenAI-compatible APIs accept as a function name.
var toolName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// MaxSchemaBytes bounds a tool's parameter schema, which every agent
// turn sends to the model: a larger one is refused at registration.
const MaxSchemaBytes = 16 << 10

// MCPPrefix starts the name of every MCP server's tool
// (mcp__<server>__<tool>); a registered tool may not use it, so that no
// server's tool is ever mistaken for one of the worker's own.
const MCPPrefix = "mcp__"

// emptySchema is the schema of a tool without arguments.
var emptySchema = json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`)

// Register adds t. It refuses a duplicate or malformed name, a name
// starting with [MCPPrefix], the name [FinishStep] (the workflow's own),
// a missing Run function and Parameters that are not a JSON object or
// are larger than [MaxSchemaBytes]; empty Parameters mean no arguments.
func (r *Registry) Register(t Tool) error {
	if !toolName.MatchString(t.Name) {
		return fmt.Errorf("register tool %q: name must be 1-64 letters, digits, _ or -", t.Name)
	}
	if strings.HasPrefix(t.Name, MCPPrefix) {
		return fmt.Errorf("register tool %q: names starting with %s are kept for MCP servers' tools", t.Name, MCPPrefix)
	}
	if t.Name == FinishStep {
		return fmt.Errorf("register tool %q: the name is kept for the way an agent step ends", t.Name)
	}
	if len(t.Parameters) > MaxSchemaBytes {
		return fmt.Errorf("register tool %q: parameters schema is %d bytes, more than %d", t.Name, len(t.Parameters), MaxSchemaBytes)
	}
	if t.Run == nil {
		return fmt.Errorf("register tool %q: no Run function", t.Name)
	}
	if len(t.Parameters) == 0 {
		t.Parameters = emptySchema
	}
	var schema map[string]any
	if err := json.Unmarshal(t.Parameters, &schema); err != nil {
		return fmt.Errorf("register tool %q: parameters must be a JSON schema object: %w", t.Name, err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.tools == nil {
		r.tools = map[string]Tool{}
	}
	if _, dup := r.tools[t.Name]; dup {
		return fmt.Errorf("register tool %q: a tool with that name is already registered", t.Name)
	}
	r.tools[t.Name] = t
	return nil
}

// Get returns the tool called name.
func (r *Registry) Get(name string) (Tool, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	t, ok := r.tools[name]
	return t, ok
}

// Names returns every tool name, sorted.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	names := make([]string, 0, len(r.tools))
	for n := range r.tools {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ReadOnlyNames returns the names of the read-only tools, sorted.
func (r *Registry) ReadOnlyNames() []string {
	var names []string
	for _, s := range r.ReadOnlySpecs() {
		names = append(names, s.Name)
	}
	return names
}

// Specs returns the specs of the named tools in the order given, skipping
// unknown names and repeats; nil or empty names return every spec, sorted
// by name.
func (r *Registry) Specs(names []string) []Spec {
	if len(names) == 0 {
		names = r.Names()
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	specs := make([]Spec, 0, len(names))
	var seen []string
	for _, n := range names {
		t, ok := r.tools[n]
		if !ok || slices.Contains(seen, n) {
			continue
		}
		seen = append(seen, n)
		specs = append(specs, t.Spec)
	}
	return specs
}

// ReadOnlySpecs returns the specs of the read-only tools, sorted by name:
// the tools offered while planning and reflecting.
func (r *Registry) ReadOnlySpecs() []Spec {
	var out []Spec
	for _, s := range r.Specs(nil) {
		if s.ReadOnly {
			out = append(out, s)
		}
	}
	return out
}
