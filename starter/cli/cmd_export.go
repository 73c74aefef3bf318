package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
)

func newExportCmd(d *deps) *cobra.Command {
	return &cobra.Command{
		Use:   "export <id>",
		Short: "Print a plan's steps in the format start --plan reads (YAML, or JSON with --output json)",
		Example: `  planmode export plan-42 > exported.yaml   # then: planmode start GOAL --plan exported.yaml
  planmode export plan-42 --output json`,
		Args: rejectArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runExport(cmd.Context(), d, args[0])
		},
	}
}

// runExport prints the current plan of workflow id as export does.
func runExport(ctx context.Context, d *deps, id string) error {
	pc, err := d.plans(ctx)
	if err != nil {
		return err
	}
	return export(ctx, pc, d.printer(), id)
}

// export prints the current plan of workflow id as an external plan: YAML
// by default, JSON under --output json.
func export(ctx context.Context, pc *planclient.Client, p printer, id string) error {
	view, err := pc.Plan(ctx, id)
	if err != nil {
		return err
	}
	if view.Plan == nil {
		return rejectf(fmt.Sprintf("plan %s has no plan yet: select an option first", id))
	}
	doc, err := exportDoc(*view.Plan)
	if err != nil {
		return err
	}
	if p.json {
		return p.printJSON(doc)
	}
	return writeYAML(p.out, doc)
}

// runtimeStepFields are the step fields a run fills in: an exported plan
// leaves them out, since a new run starts every step pending and numbers
// them itself.
var runtimeStepFields = []string{"number", "status", "result", "startedAt", "endedAt", "note"}

// exportDoc is p as the document start --plan reads (signals.ExternalPlan):
// title and steps, without the fields a run fills in. It goes through
// JSON so the field names are the wire's.
func exportDoc(p plan.Plan) (map[string]any, error) {
	ext := signals.ExternalPlan{Title: p.Title, Steps: p.Steps}
	b, err := json.Marshal(ext)
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	steps, _ := doc["steps"].([]any)
	for _, s := range steps {
		if m, ok := s.(map[string]any); ok {
			for _, k := range runtimeStepFields {
				delete(m, k)
			}
		}
	}
	return doc, nil
}

// writeYAML writes doc as YAML with two-space indents.
func writeYAML(w io.Writer, doc any) error {
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("write YAML: %w", err)
	}
	return enc.Close()
}

// readPlan reads an external plan (start --plan) from a JSON or YAML file:
// {"title": "", "steps": [...]} or a list of steps.
func readPlan(file string) (*signals.ExternalPlan, error) {
	if file == "" {
		return nil, nil
	}
	var p signals.ExternalPlan
	if err := decodeFile(file, &p); err != nil {
		var steps []plan.Step
		if lerr := decodeFile(file, &steps); lerr != nil {
			return nil, err
		}
		p.Steps = steps
	}
	if len(p.Steps) == 0 {
		return nil, rejectf(fmt.Sprintf("%s holds no steps", file))
	}
	return &p, nil
}
