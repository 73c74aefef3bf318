package plan

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDurationNeedsAUnit(t *testing.T) {
	ok := []struct {
		in   string
		want time.Duration
	}{
		{`"90s"`, 90 * time.Second},
		{`"1h30m"`, 90 * time.Minute},
		{`"-5m"`, -5 * time.Minute},
		{`""`, 0},
		{`null`, 0},
		{`0`, 0},
		{`0.0`, 0},
		{`"0"`, 0},
	}
	for _, tc := range ok {
		var d Duration
		require.NoError(t, json.Unmarshal([]byte(tc.in), &d), tc.in)
		assert.Equal(t, tc.want, d.D(), tc.in)
	}
	bad := []struct{ in, want string }{
		{`90`, `duration 90 has no unit: write a string such as "90s"`},
		{`1e9`, "has no unit"},
		{`-1`, "has no unit"},
		{`"90"`, `missing unit`},
		{`"soon"`, `write a number with a unit such as "90s"`},
		{`true`, `duration must be a string such as "90s"`},
		{`{}`, `duration must be a string such as "90s"`},
	}
	for _, tc := range bad {
		var d Duration
		err := json.Unmarshal([]byte(tc.in), &d)
		require.Error(t, err, tc.in)
		assert.Contains(t, err.Error(), tc.want, tc.in)
	}
}

func TestDurationRoundTrips(t *testing.T) {
	for _, d := range []Duration{0, Duration(time.Nanosecond), Duration(90 * time.Second), Duration(-time.Hour)} {
		b, err := json.Marshal(d)
		require.NoError(t, err)
		var back Duration
		require.NoError(t, json.Unmarshal(b, &back), string(b))
		assert.Equal(t, d, back)
	}
}
