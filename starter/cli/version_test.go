package cli

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/planmode/planmode/internal/version"
)

func TestVersionFlagPrintsTheBuild(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"-v"}, {"--version", "--address", nowhere(t)}} {
		a, out, errOut := newTestApp(t, "")
		code := a.run(context.Background(), args)
		assert.Equal(t, exitOK, code, errOut.String())
		assert.Equal(t, "planmode version "+version.Version()+"\n", out.String(), "no server is needed")
	}
}
