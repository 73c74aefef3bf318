package cli

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestChooseAsksAgainAfterABadAnswer(t *testing.T) {
	d, out, _ := newTestDeps(t, "9\nr9-o9\n\n2\n")
	id, err := choose(d.in, d.out, fixtureOptions())
	require.ErrorContains(t, err, `invalid choice "": want a number 1..2 or an option id (no valid choice in 3 tries)`)
	assert.Equal(t, exitRejected, exitCode(err))
	assert.Empty(t, id)
	assert.Equal(t, 3, strings.Count(out.String(), "Select an option (1-2): "), "three tries, no more")
	assert.Contains(t, out.String(), "invalid choice 9: want 1..2; try again.")
	assert.Contains(t, out.String(), `invalid choice "r9-o9": want a number 1..2 or an option id; try again.`)

	d, out, _ = newTestDeps(t, "3\nopt-2\n")
	id, err = choose(d.in, d.out, fixtureOptions())
	require.NoError(t, err)
	assert.Equal(t, "opt-2", id, "the second answer counts")
	assert.Equal(t, 2, strings.Count(out.String(), "Select an option (1-2): "))
}

func TestChooseStopsWhenTheInputEnds(t *testing.T) {
	cases := []struct {
		name, in, wantErr string
		want              int
	}{
		{name: "nothing typed", in: "", wantErr: "read the choice: EOF", want: exitOther},
		{name: "a bad last line", in: "7", wantErr: "invalid choice 7: want 1..2", want: exitRejected},
		{name: "a bad answer, then nothing", in: "7\n", wantErr: "invalid choice 7: want 1..2", want: exitRejected},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, _, _ := newTestDeps(t, tc.in)
			_, err := choose(d.in, d.out, fixtureOptions())
			require.ErrorContains(t, err, tc.wantErr)
			assert.NotContains(t, err.Error(), "tries")
			assert.Equal(t, tc.want, exitCode(err))
		})
	}
}
