package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

func newAnswerCmd(d *deps) *cobra.Command {
	var answers []string
	var file string
	cmd := &cobra.Command{
		Use:   "answer <id> (--answer <question>=<answer>... | --file answers.json)",
		Short: "Answer the clarifying questions (by question text or number)",
		Example: `  planmode answer plan-42 --answer "1=JWT in cookies" --answer "2=no refresh tokens"
  planmode answer plan-42 --file answers.json
  # answers.json (each question by its number or its text):
  # {"answers": {"1": "JWT in cookies", "2": "no refresh tokens"}}`,
		Args: rejectArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			req, err := answerRequest(answers, file)
			if err != nil {
				return err
			}
			pc, err := d.plans(cmd.Context())
			if err != nil {
				return err
			}
			resp, err := pc.Answer(cmd.Context(), args[0], req)
			if err != nil {
				return err
			}
			return d.printer().emit(resp, func(w io.Writer) error {
				fmt.Fprintf(w, "accepted %d answer(s)\n", resp.Accepted)
				for _, q := range resp.Remaining {
					fmt.Fprintf(w, "  still open: %s\n", q)
				}
				return nil
			})
		},
	}
	cmd.Flags().StringArrayVar(&answers, "answer", nil, `an answer as "question=answer"; the question may be its number (repeatable)`)
	cmd.Flags().StringVar(&file, "file", "", `JSON or YAML file: {"answers": {question: answer}} or {question: answer}`)
	return cmd
}

// answerRequest builds the answers from --answer pairs or a file.
func answerRequest(pairs []string, file string) (signals.AnswerClarificationRequest, error) {
	req := signals.AnswerClarificationRequest{Answers: map[string]string{}}
	if file != "" {
		var wrapped signals.AnswerClarificationRequest
		if err := decodeFile(file, &wrapped); err == nil && len(wrapped.Answers) > 0 {
			req = wrapped
		} else if err := decodeFile(file, &req.Answers); err != nil {
			return req, err
		}
	}
	for _, p := range pairs {
		q, ans, ok := strings.Cut(p, "=")
		if !ok || strings.TrimSpace(q) == "" {
			return req, rejectf(fmt.Sprintf("--answer %q: want question=answer", p))
		}
		req.Answers[strings.TrimSpace(q)] = strings.TrimSpace(ans)
	}
	if len(req.Answers) == 0 {
		return req, rejectf("give --answer or --file")
	}
	return req, nil
}

func newConfirmSkipCmd(d *deps) *cobra.Command {
	var approve, deny bool
	var note string
	cmd := &cobra.Command{
		Use:   "confirm-skip <id> <request-id> (--approve | --deny)",
		Short: "Approve or deny a skip the reflection proposed",
		Example: `  planmode confirm-skip plan-42 skip-1 --approve      # request ids are in planmode show
  planmode confirm-skip plan-42 skip-1 --deny --note "tests must run"`,
		Args: rejectArgs(cobra.ExactArgs(2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if approve == deny {
				return rejectf("give exactly one of --approve or --deny")
			}
			pc, err := d.plans(cmd.Context())
			if err != nil {
				return err
			}
			req := signals.ConfirmSkipRequest{RequestID: args[1], Approve: approve, Note: note}
			resp, err := pc.ConfirmSkip(cmd.Context(), args[0], req)
			if err != nil {
				return err
			}
			return d.printer().emit(resp, func(w io.Writer) error {
				verb := "denied"
				if resp.Approved {
					verb = "approved"
				}
				_, err := fmt.Fprintf(w, "%s skip %s of %s\n", verb, resp.RequestID, strings.Join(resp.StepIDs, ", "))
				return err
			})
		},
	}
	cmd.Flags().BoolVar(&approve, "approve", false, "skip the steps")
	cmd.Flags().BoolVar(&deny, "deny", false, "run the steps after all")
	cmd.Flags().StringVar(&note, "note", "", "why")
	return cmd
}

func newEditCmd(d *deps) *cobra.Command {
	var file, reason string
	cmd := &cobra.Command{
		Use:   "edit <id> --file edits.json|edits.yaml",
		Short: "Edit the plan: insertAfter, insertBefore, append, remove, removeAfter, update",
		Example: `  planmode edit plan-42 --file edits.yaml --reason "vet before the tests"
  # edits.yaml (steps as the plan query shows them; a new step without an id gets one):
  # edits:
  #   - op: insertAfter
  #     stepId: s2
  #     step:
  #       title: Vet the code
  #       action: tool
  #       config: {tool: {name: run_command, params: {command: go, args: [vet, ./...]}}}`,
		Args: rejectArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			req, err := editRequest(file, reason)
			if err != nil {
				return err
			}
			pc, err := d.plans(cmd.Context())
			if err != nil {
				return err
			}
			resp, err := pc.Edit(cmd.Context(), args[0], req)
			if err != nil {
				return err
			}
			return d.printer().emit(resp, func(w io.Writer) error {
				fmt.Fprintf(w, "plan is now at version %d\n", resp.Version)
				return renderSteps(w, resp.Plan.Steps)
			})
		},
	}
	cmd.Flags().StringVar(&file, "file", "", `JSON or YAML file: {"edits": [...], "reason": ""} or a list of edits`)
	cmd.Flags().StringVar(&reason, "reason", "", "why (overrides the file's reason)")
	return cmd
}

// editRequest reads the edits from file.
func editRequest(file, reason string) (signals.EditPlanRequest, error) {
	var req signals.EditPlanRequest
	if file == "" {
		return req, rejectf("--file is required")
	}
	if err := decodeFile(file, &req); err != nil {
		var list []plan.Edit
		if lerr := decodeFile(file, &list); lerr != nil {
			return req, err
		}
		req.Edits = list
	}
	if reason != "" {
		req.Reason = reason
	}
	if len(req.Edits) == 0 {
		return req, rejectf(fmt.Sprintf("%s holds no edits", file))
	}
	return req, nil
}

// decodeFile decodes a JSON or YAML file (by extension; YAML is read as
// JSON would be, so the JSON field names apply) into v, refusing unknown
// fields.
func decodeFile(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return rejectf(fmt.Sprintf("read %s: %v", path, err))
	}
	if ext := strings.ToLower(filepath.Ext(path)); ext == ".yaml" || ext == ".yml" {
		var doc any
		if err := yaml.Unmarshal(b, &doc); err != nil {
			return rejectf(fmt.Sprintf("%s: %v", path, err))
		}
		if b, err = json.Marshal(doc); err != nil {
			return rejectf(fmt.Sprintf("%s: %v", path, err))
		}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return rejectf(fmt.Sprintf("%s: %v", path, err))
	}
	return nil
}
