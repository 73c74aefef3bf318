package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/planmode/planmode/internal/version"
)

// buildInfo is what version prints under --output json.
type buildInfo struct {
	Version     string `json:"version"`
	Commit      string `json:"commit"`
	TemporalSDK string `json:"temporalSDK"`
}

// newVersionCmd builds version, which prints what `planmode --version`
// prints: the version, the commit and the Temporal Go SDK of this build.
func newVersionCmd(d *deps) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, the commit and the Temporal Go SDK of this build",
		Example: `  planmode version
  planmode version --output json`,
		Args: rejectArgs(cobra.NoArgs),
		// It reads no configuration, so that it answers where the
		// configuration is broken too.
		PersistentPreRunE: func(*cobra.Command, []string) error { return d.checkOutput() },
		RunE: func(*cobra.Command, []string) error {
			info := buildInfo{Version: version.Version(), Commit: version.Commit(), TemporalSDK: version.SDK()}
			return d.printer().emit(info, func(w io.Writer) error {
				_, err := fmt.Fprintln(w, version.String("planmode"))
				return err
			})
		},
	}
}
