package signals

import (
	"bytes"
	"encoding/json"
	"testing"
)

// The fuzz targets below run their seeds (testdata/fuzz) as ordinary
// tests; `go test -fuzz=FuzzX ./signals` explores further. Each decodes a
// payload as the workflow does and holds: no panic; what is accepted
// passes its own Validate, is within its bounds, and encodes to JSON that
// is accepted again and encodes the same (a round trip).

func FuzzSelectOption(f *testing.F) {
	fuzzPayload(f, SelectOption.Decode, func(t *testing.T, r SelectOptionRequest) {
		if (r.OptionID != "" && r.Rank != 0) || len(r.Feedback) > MaxTextBytes {
			t.Fatalf("accepted %+v", r)
		}
	})
}

func FuzzRefinePlan(f *testing.F) {
	fuzzPayload(f, RefinePlan.Decode, func(t *testing.T, r RefinePlanRequest) {
		if len(r.Feedback) > MaxTextBytes {
			t.Fatalf("accepted feedback of %d bytes", len(r.Feedback))
		}
	})
}

func FuzzAnswerClarification(f *testing.F) {
	fuzzPayload(f, AnswerClarification.Decode, func(t *testing.T, r AnswerClarificationRequest) {
		if len(r.Answers) > MaxAnswers {
			t.Fatalf("accepted %d answers", len(r.Answers))
		}
		for q, a := range r.Answers {
			if len(q) > MaxTextBytes || len(a) > MaxTextBytes {
				t.Fatalf("accepted an answer of %d bytes to a question of %d", len(a), len(q))
			}
		}
	})
}

func FuzzConfirmSkip(f *testing.F) {
	fuzzPayload(f, ConfirmSkip.Decode, func(t *testing.T, r ConfirmSkipRequest) {
		if len(r.Note) > MaxTextBytes {
			t.Fatalf("accepted a note of %d bytes", len(r.Note))
		}
	})
}

func FuzzEditPlan(f *testing.F) {
	fuzzPayload(f, EditPlan.Decode, func(t *testing.T, r EditPlanRequest) {
		b, err := json.Marshal(r.Edits)
		if err != nil || len(b) > MaxEditBytes || len(r.Edits) > MaxEdits || len(r.Reason) > MaxTextBytes {
			t.Fatalf("accepted %d edits of %d bytes (%v)", len(r.Edits), len(b), err)
		}
		for _, e := range r.Edits {
			if err := e.Check(); err != nil {
				t.Fatalf("accepted a malformed edit: %v", err)
			}
		}
	})
}

func FuzzControl(f *testing.F) {
	fuzzPayload(f, Pause.Decode, func(t *testing.T, r ControlRequest) {
		if len(r.Reason) > MaxTextBytes {
			t.Fatalf("accepted a reason of %d bytes", len(r.Reason))
		}
	})
}

func FuzzRollback(f *testing.F) {
	fuzzPayload(f, Rollback.Decode, func(*testing.T, RollbackRequest) {})
}

func FuzzAwaitOptions(f *testing.F) {
	fuzzPayload(f, AwaitOptions.Decode, func(*testing.T, AwaitOptionsRequest) {})
}

func FuzzApproveToolCall(f *testing.F) {
	fuzzPayload(f, ApproveToolCall.Decode, func(t *testing.T, r ApproveToolCallRequest) {
		var obj map[string]json.RawMessage
		if len(r.Args) > MaxApprovalArgsBytes || (len(r.Args) > 0 && json.Unmarshal(r.Args, &obj) != nil) {
			t.Fatalf("accepted args %q", r.Args)
		}
		if r.RequestID == "" || (r.ArgsDigest != "" && !validDigest(r.ArgsDigest)) || r.PlanVersion < 0 || len(r.Note) > MaxTextBytes {
			t.Fatalf("accepted %+v", r)
		}
	})
}

func FuzzDenyToolCall(f *testing.F) {
	fuzzPayload(f, DenyToolCall.Decode, func(t *testing.T, r DenyToolCallRequest) {
		if r.RequestID == "" || r.Reason == "" || len(r.Reason) > MaxTextBytes {
			t.Fatalf("accepted %+v", r)
		}
	})
}

func FuzzRaiseBudget(f *testing.F) {
	fuzzPayload(f, RaiseBudget.Decode, func(t *testing.T, r RaiseBudgetRequest) {
		if r.MaxTokens < 0 || r.MaxCostUSD < 0 || (r.MaxTokens == 0 && r.MaxCostUSD == 0) || r.Reason == "" {
			t.Fatalf("accepted %+v", r)
		}
	})
}

// FuzzStartRequest decodes a start request strictly, as the README's
// example is held to, and validates it: what is accepted is within the
// bounds of limits.go and survives a round trip.
func FuzzStartRequest(f *testing.F) {
	decode := func(raw json.RawMessage) (StartRequest, error) {
		var r StartRequest
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			return r, err
		}
		return r, r.Validate()
	}
	fuzzPayload(f, decode, func(t *testing.T, r StartRequest) {
		e := r.Execution
		switch {
		case len(r.Goal) > MaxGoalBytes || len(r.SystemPrompt) > MaxPromptBytes:
			t.Fatal("accepted a goal or system prompt beyond its bound")
		case len(r.Requirements) > MaxListItems || len(r.Constraints) > MaxListItems || len(r.History) > MaxHistoryMessages:
			t.Fatal("accepted a list beyond its bound")
		case e.Parallelism > MaxParallelism || e.MaxSteps > MaxSteps || e.MaxIterationsPerStep > MaxIterationsPerStep:
			t.Fatalf("accepted execution %+v", e)
		case e.Parallelism < 0 || e.MaxSteps < 0 || e.MaxIterationsPerStep < 0 || r.Budget.MaxTokens < 0 || r.Budget.MaxCostUSD < 0:
			t.Fatal("accepted a negative limit")
		case r.Selection.Timeout > MaxWait || e.ConfirmTimeout > MaxWait || r.Clarify.Timeout > MaxWait:
			t.Fatal("accepted a wait beyond its bound")
		case r.Selection.Timeout < 0 || e.ConfirmTimeout < 0 || r.Clarify.Timeout < 0 || e.HeartbeatTimeout < 0:
			t.Fatal("accepted a negative timeout")
		}
		r.Checkpoint = nil
		if b, err := json.Marshal(r); err != nil || len(b) > MaxStartRequestBytes {
			t.Fatalf("accepted a request of %d bytes (%v)", len(b), err)
		}
	})
}

// fuzzPayload fuzzes decode with the invariants every payload shares, and
// within as the payload's own bounds.
func fuzzPayload[Req any](f *testing.F, decode func(json.RawMessage) (Req, error), within func(*testing.T, Req)) {
	f.Fuzz(func(t *testing.T, raw string) {
		req, err := decode(json.RawMessage(raw))
		if err != nil {
			return
		}
		if err := checkPayload("fuzz", req); err != nil {
			t.Fatalf("accepted a payload its Validate refuses: %v", err)
		}
		within(t, req)
		b, err := json.Marshal(req)
		if err != nil {
			t.Fatalf("accepted a payload that does not encode: %v", err)
		}
		again, err := decode(b)
		if err != nil {
			t.Fatalf("the encoding %s of an accepted payload is refused: %v", b, err)
		}
		b2, err := json.Marshal(again)
		if err != nil || !bytes.Equal(b, b2) {
			t.Fatalf("round trip changed the payload:\n%s\n%s (%v)", b, b2, err)
		}
	})
}
