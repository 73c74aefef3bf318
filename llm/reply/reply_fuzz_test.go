package reply

import (
	"testing"

	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/plan"
)

// FuzzOptionsReply feeds the planner's reply parser and its conversion to
// plan steps any text: it never panics, an accepted reply passed its
// checks, and its steps convert one for one, numbered in order.
func FuzzOptionsReply(f *testing.F) {
	for _, seed := range []string{
		`{"options":[{"title":"t","description":"d","steps":[{"id":"s1","title":"a","action":"llm","dependsOn":[]}]}]}`,
		`{"options":[{"title":"t","steps":[{"id":"s1","title":"a","action":"tool","config":{"tool":{"name":"list_files","params":{}}}},{"id":"s2","title":"b","action":"llm","dependsOn":["s1"],"maxRetries":2,"retryDelay":"2s","fallbackStepId":"s3","skipCondition":"s1.failed"}]}]}`,
		`{"options":[]}`, `{"options":[{"steps":[{"dependsOn":null}]}]}`, "```json\n{\"options\":[{}]}\n```",
		`{"options":[{"title":"t","steps":[{"id":"s1","title":"a","action":"agent","config":{"agent":{"tools":["read_file"],"maxIterations":99}}}]}]}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, content string) {
		out, err := llm.DecodeReply(content, func(r *Options) error { return r.Check(plan.MaxPlanSteps) })
		if err != nil {
			return
		}
		if err := out.Check(plan.MaxPlanSteps); err != nil {
			t.Fatalf("accepted a reply its check refuses: %v", err)
		}
		for _, o := range out.Options {
			for _, sequential := range []bool{false, true} {
				steps := PlanSteps(o.Steps, sequential)
				if len(steps) != len(o.Steps) {
					t.Fatalf("%d reply steps became %d plan steps", len(o.Steps), len(steps))
				}
				for i, s := range steps {
					if s.Number != i+1 || s.Status != plan.StepPending {
						t.Fatalf("step %d is numbered %d with status %s", i, s.Number, s.Status)
					}
				}
			}
		}
	})
}

// FuzzReflectReply: the reflection parser never panics and an accepted
// reply converts to a reflection with the same decision.
func FuzzReflectReply(f *testing.F) {
	for _, seed := range []string{`{"decision":"continue","reason":"ok"}`, `{"decision":"skip","stepIds":["s2"],"confidence":0.9,"reason":"r"}`,
		`{"decision":"insert","edits":[{"op":"insertAfter","stepId":"s1","step":{"title":"x","action":"llm"}}],"reason":"r"}`,
		`{"decision":"nonsense"}`, `{"decision":"complete","response":"done","reason":"r"}`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, content string) {
		out, err := llm.DecodeReply(content, func(r *Reflect) error { return r.Check() })
		if err != nil {
			return
		}
		if got := out.Reflection().Decision; got != out.Decision {
			t.Fatalf("decision %s became %s", out.Decision, got)
		}
	})
}
