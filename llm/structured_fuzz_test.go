package llm

import (
	"encoding/json"
	"errors"
	"testing"
)

// FuzzExtractJSON feeds the reply parser whatever a model may write:
// fenced blocks, prose around JSON, cut-off objects. It never panics, and
// what it accepts is one valid JSON value that decodes as an object or an
// array, so the strict decoding after it sees JSON, not prose.
func FuzzExtractJSON(f *testing.F) {
	for _, seed := range []string{
		`{"goal":"x"}`, "```json\n{\"a\":1}\n```", "Here you go: {\"a\": [1, 2]} hope it helps",
		`{"a": "unterminated`, "", "   ", "[1,2,3]", "```\n[]\n```", `{"a":{"b":{"c":[{}]}}}`, "no json at all",
		"```json\n{\"a\":1}\n``` and ```json\n{\"b\":2}\n```", `{"a":"}{"}`, "\x00{\"a\":1}",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, content string) {
		raw, err := ExtractJSON(content)
		if err != nil {
			return
		}
		if !json.Valid(raw) {
			t.Fatalf("ExtractJSON(%q) accepted %q, which is not JSON", content, raw)
		}
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatalf("ExtractJSON(%q) = %q: %v", content, raw, err)
		}
	})
}

// reply is a small reply type for FuzzDecodeReply.
type fuzzReply struct {
	Goal  string   `json:"goal"`
	Steps []string `json:"steps"`
}

// FuzzDecodeReply checks the structured decoding a repair depends on: it
// never panics, and an accepted reply passed its check.
func FuzzDecodeReply(f *testing.F) {
	for _, seed := range []string{`{"goal":"g","steps":["a"]}`, `{"goal":""}`, "```json\n{\"goal\":\"g\"}\n```",
		`{"goal":1}`, `{"goal":"g","extra":true}`, `[]`, `{"goal":"g","steps":null}`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, content string) {
		checked := false
		out, err := DecodeReply(content, func(r *fuzzReply) error {
			checked = true
			if r.Goal == "" {
				return errEmptyGoal
			}
			return nil
		})
		if err != nil {
			return
		}
		if !checked || out.Goal == "" {
			t.Fatalf("DecodeReply(%q) accepted %+v without its check", content, out)
		}
	})
}

// errEmptyGoal is FuzzDecodeReply's check failure.
var errEmptyGoal = errors.New("the goal is empty")
