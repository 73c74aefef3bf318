package signals

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDeadlineDecoding(t *testing.T) {
	start := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		json    string
		want    time.Time
		wantErr string
	}{
		{`"2h"`, start.Add(2 * time.Hour), ""},
		{`"90m30s"`, start.Add(90*time.Minute + 30*time.Second), ""},
		{`"720h"`, start.Add(720 * time.Hour), ""},
		{`"2026-05-01T18:00:00Z"`, start.Add(6 * time.Hour), ""},
		{`"2026-05-01T14:00:00+02:00"`, start, ""},
		{`"721h"`, time.Time{}, "at most 720h0m0s"},
		{`"0s"`, time.Time{}, "must be more than 0"},
		{`"-1h"`, time.Time{}, "must be more than 0"},
		{`"7200"`, time.Time{}, "a duration with a unit"},
		{`"0"`, time.Time{}, "a duration with a unit"},
		{`7200`, time.Time{}, "a duration with a unit"},
		{`"tomorrow"`, time.Time{}, "a duration with a unit"},
		{`"2026-05-01 18:00"`, time.Time{}, "a duration with a unit"},
	}
	for _, tc := range cases {
		t.Run(tc.json, func(t *testing.T) {
			var d Deadline
			err := json.Unmarshal([]byte(tc.json), &d)
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				assert.Empty(t, d, "a refused deadline sets nothing")
				return
			}
			require.NoError(t, err)
			at, ok, err := d.At(start)
			require.NoError(t, err)
			assert.True(t, ok)
			assert.True(t, tc.want.Equal(at), "deadline %s, want %s", at, tc.want)
			b, err := json.Marshal(d)
			require.NoError(t, err)
			assert.JSONEq(t, tc.json, string(b), "kept as the caller wrote it")
		})
	}
}

func TestDeadlineAtBoundsTimes(t *testing.T) {
	start := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	_, ok, err := Deadline("").At(start)
	assert.NoError(t, err)
	assert.False(t, ok, "no deadline")

	_, _, err = Deadline("2026-06-01T12:00:01Z").At(start)
	assert.ErrorContains(t, err, "at most 720h0m0s after the start")

	past, ok, err := Deadline("2026-04-01T00:00:00Z").At(start)
	require.NoError(t, err)
	assert.True(t, ok)
	assert.True(t, past.Before(start), "a past deadline ends the run at once")
}
