package plan

import (
	"encoding/json"
	"fmt"
	"time"
)

// Duration is a time.Duration that travels in JSON as a Go duration string
// such as "90s" or "24h", so that people and other languages can write it.
// A bare JSON number is refused unless it is 0: a number has no unit, and
// reading 90 as 90 nanoseconds turned "wait 90 seconds" into "do not wait".
type Duration time.Duration

// D returns d as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// String returns d in Go's duration notation.
func (d Duration) String() string { return time.Duration(d).String() }

// MarshalJSON writes d as a duration string.
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

// UnmarshalJSON reads a duration string ("90s", "1h30m"), an empty string,
// null or the number 0 (all three zero). Any other number, and a string
// without a unit, is an error that says to write "90s".
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		if s == "" {
			*d = 0
			return nil
		}
		v, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("duration %q: %w: write a number with a unit such as \"90s\", \"5m\" or \"24h\"", s, err)
		}
		*d = Duration(v)
		return nil
	}
	var n float64
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("duration must be a string such as \"90s\": got %s", b)
	}
	if n != 0 {
		return fmt.Errorf("duration %s has no unit: write a string such as \"90s\"", b)
	}
	*d = 0
	return nil
}
