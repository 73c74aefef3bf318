package signals

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/planmode/planmode/plan"
)

// Deadline is when a run must be over: a duration from the run's start
// ("2h", "90m") or an RFC 3339 time ("2026-05-01T18:00:00Z"). The empty
// value sets none. It is kept as the caller wrote it, so the request in
// history reads as sent; At resolves it against the run's start. At the
// deadline running steps are cancelled, no step starts any more and the
// run ends failed with its partial summary.
type Deadline string

// MaxDeadline bounds a deadline: like every wait of a run, at most
// MaxWait after the run's start.
const MaxDeadline = MaxWait

// errDeadlineForm is the refusal of a deadline in neither form.
var errDeadlineForm = errors.New(`deadline must be a duration with a unit ("2h", "90m") or an RFC 3339 time`)

// UnmarshalJSON accepts a JSON string in one of the two forms, strictly:
// a bare number, a duration without a unit and any other shape are
// refused, so a typo fails the start instead of setting no deadline.
func (d *Deadline) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("deadline: %w", errDeadlineForm)
	}
	v := Deadline(s)
	if err := v.Validate(); err != nil {
		return err
	}
	*d = v
	return nil
}

// Validate reports what is wrong with d: a form it does not take, a
// duration that is not positive or longer than MaxDeadline. An RFC 3339
// time is checked against the start by At. The empty value is valid.
func (d Deadline) Validate() error {
	if d == "" {
		return nil
	}
	if len(d) > MaxNameBytes {
		return fmt.Errorf("deadline is %d bytes: %w", len(d), errDeadlineForm)
	}
	after, at, err := d.parse()
	if err != nil {
		return err
	}
	if at.IsZero() && (after <= 0 || plan.Duration(after) > MaxDeadline) {
		return fmt.Errorf("deadline %s: must be more than 0 and at most %s", string(d), MaxDeadline)
	}
	return nil
}

// At is the time d names for a run that started at start: start plus the
// duration, or the RFC 3339 time itself (one already past ends the run at
// once). ok is false when d is empty. It fails for a malformed d and for a
// time more than MaxDeadline after start.
func (d Deadline) At(start time.Time) (at time.Time, ok bool, err error) {
	if d == "" {
		return time.Time{}, false, nil
	}
	if err := d.Validate(); err != nil {
		return time.Time{}, false, err
	}
	after, at, _ := d.parse()
	if at.IsZero() {
		return start.Add(after), true, nil
	}
	if at.Sub(start) > MaxDeadline.D() {
		return time.Time{}, false, fmt.Errorf("deadline %s: at most %s after the start (%s)", string(d), MaxDeadline, start.Format(time.RFC3339))
	}
	return at, true, nil
}

// parse reads d as a duration with a unit, or else as an RFC 3339 time.
func (d Deadline) parse() (time.Duration, time.Time, error) {
	s := string(d)
	if hasUnit(s) {
		if after, err := time.ParseDuration(s); err == nil {
			return after, time.Time{}, nil
		}
	}
	at, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return 0, time.Time{}, fmt.Errorf("deadline %q: %w", s, errDeadlineForm)
	}
	return 0, at, nil
}

// hasUnit reports whether s ends in a letter, as a duration with a unit
// does and "0" or "7200" do not.
func hasUnit(s string) bool {
	return s != "" && strings.ContainsAny(s[len(s)-1:], "hmsuµn") && !strings.ContainsAny(s, "T:")
}
