package signals

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/planmode/planmode/plan"
)

// UnmarshalJSON decodes a request as the SDK's JSON converter always has,
// ignoring fields the request does not have, and remembers the first such
// field (at any depth) for [StartRequest.UnknownFields]. The workflow gets
// its input through that converter, so this is where a misspelt field can
// still be seen; refusing it here instead would fail the workflow task
// over and over rather than the run. A request carried across
// continue-as-new is the run's own and is not checked.
func (r *StartRequest) UnmarshalJSON(b []byte) error {
	type plain StartRequest // without the methods, so no recursion
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*r = StartRequest(p)
	if r.Checkpoint != nil {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var strict plain
	if err := dec.Decode(&strict); err != nil {
		r.unknown = plainError(err)
	}
	return nil
}

// plainError is a decoding error without the package's prefix.
func plainError(err error) string {
	msg, _ := strings.CutPrefix(err.Error(), "json: ")
	return msg
}

// UnknownFields returns an error naming the first field the JSON r was
// decoded from has and a StartRequest does not (a misspelling, or a field
// of a newer version), or nil. A request built in Go has none. The README
// promises unknown fields are refused: the workflow fails a first run
// whose request has one with ErrorTypeInvalidRequest.
func (r StartRequest) UnknownFields() error {
	if r.unknown == "" {
		return nil
	}
	return fmt.Errorf("invalid start request: %s: the request has no such field (see the StartRequest in the README)",
		plan.TruncateBytes(r.unknown, maxProblemBytes))
}
