package plan

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// graphPlan is s1 → s2 → s3 with s2 falling back to s4, in every kind of
// status.
func graphPlan() Plan {
	p := withStatus(chain(3), StepCompleted, StepRunning, StepPending)
	fb := llmStep("s4")
	fb.Number = 4
	fb.Title = "Roll back"
	fb.Status = StepSkipped
	p.Steps[1].FallbackStepID = "s4"
	p.Steps = append(p.Steps, fb)
	return p
}

func TestMermaidDrawsStepsEdgesAndClasses(t *testing.T) {
	got := Mermaid(graphPlan())
	lines := strings.Split(strings.TrimSpace(got), "\n")
	assert.Equal(t, "flowchart TD", lines[0])
	assert.Equal(t, []string{
		`    n1["1. Step s1"]:::done`,
		`    n2["2. Step s2"]:::running`,
		`    n3["3. Step s3"]:::pending`,
		`    n4["4. Roll back"]:::skipped`,
		`    n1 --> n2`,
		`    n2 -.->|fallback| n4`,
		`    n2 --> n3`,
	}, lines[1:8])
	for _, c := range graphClasses {
		assert.Contains(t, got, "\n    classDef "+string(c)+" fill:#", c)
	}
	assert.Contains(t, got, "classDef skipped fill:#f3f4f6,stroke:#9ca3af,color:#4b5563,stroke-dasharray:4 3\n")
	assert.Len(t, lines, 8+len(graphClasses))
}

func TestDOTDrawsStepsEdgesAndClasses(t *testing.T) {
	got := DOT(graphPlan())
	assert.True(t, strings.HasPrefix(got, "digraph \"p1\" {\n    rankdir=TB;\n"), got)
	assert.True(t, strings.HasSuffix(got, "}\n"))
	for _, want := range []string{
		`    n1 [label="1. Step s1", class="done", style="rounded,filled", fillcolor="#d1fae5", color="#059669", fontcolor="#064e3b"];`,
		`    n2 [label="2. Step s2", class="running", style="rounded,filled"`,
		`    n4 [label="4. Roll back", class="skipped", style="rounded,filled,dashed"`,
		"    n1 -> n2;\n",
		"    n2 -> n3;\n",
		`    n2 -> n4 [style=dashed, label="fallback"];`,
	} {
		assert.Contains(t, got, want)
	}
	assert.Equal(t, 3, strings.Count(got, " -> "), "two dependencies and one fallback")
}

func TestStepClass(t *testing.T) {
	tests := []struct {
		status StepStatus
		want   GraphClass
	}{
		{StepCompleted, ClassDone},
		{StepRunning, ClassRunning},
		{StepRetrying, ClassRunning},
		{StepFailed, ClassFailed},
		{StepSkipped, ClassSkipped},
		{StepCancelled, ClassCancelled},
		{StepPending, ClassPending},
		{"", ClassPending},
	}
	for _, tt := range tests {
		t.Run(string(tt.status), func(t *testing.T) {
			assert.Equal(t, tt.want, StepClass(tt.status))
		})
	}
}

func TestGraphLabelsAreEscaped(t *testing.T) {
	p := chain(1)
	p.ID = `p"1\`
	p.Steps[0].Title = "Say \"hi\" [now] <b>#1</b> & {x}\nthen `go`"
	p.Steps[0].Number = 0

	m := Mermaid(p)
	assert.Contains(t, m, `n1["1. Say #quot;hi#quot; #91;now#93; #lt;b#gt;#35;1#lt;/b#gt; #amp; #123;x#125; then #96;go#96;"]:::pending`,
		"quotes, brackets, markup, entities and newlines cannot break the label")

	d := DOT(p)
	assert.Contains(t, d, `digraph "p\"1\\" {`)
	assert.Contains(t, d, "n1 [label=\"1. Say \\\"hi\\\" [now] <b>#1</b> & {x} then `go`\"")
}

func TestGraphEdgeCases(t *testing.T) {
	t.Run("empty plan", func(t *testing.T) {
		assert.NotContains(t, Mermaid(Plan{}), "-->")
		assert.Equal(t, "digraph \"\" {\n    rankdir=TB;\n    node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\"];\n"+
			"    edge [fontname=\"Helvetica\", fontsize=10];\n}\n", DOT(Plan{}))
	})
	t.Run("unknown dependency and fallback are left out", func(t *testing.T) {
		p := chain(2)
		p.Steps[1].DependsOn = append(p.Steps[1].DependsOn, "ghost")
		p.Steps[0].FallbackStepID = "nowhere"
		assert.Equal(t, 1, strings.Count(Mermaid(p), "-->"))
		assert.NotContains(t, Mermaid(p), "-.->")
		assert.Equal(t, 1, strings.Count(DOT(p), " -> "))
	})
	t.Run("long titles are cut", func(t *testing.T) {
		p := chain(1)
		p.Steps[0].Title = strings.Repeat("é", 200)
		assert.Contains(t, Mermaid(p), `"1. `+strings.Repeat("é", maxLabelRunes-1)+`…"`)
	})
}
