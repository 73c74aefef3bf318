package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/planmode/planmode/outputs"
	"github.com/planmode/planmode/workspace/filesconfig"
)

func (a *app) outputCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "output <ref>",
		Short: "Print the whole of a step's output that the plan keeps only the head of",
		Long: `Print a kept output by the reference a step's result names (planmode show lists them): a key in
workspace.store ("outputs/…"), readable from any host with that store, or a path on the worker that kept it.`,
		Example: `  planmode output outputs/plan-42/s3-tool-7-1a2b3c4d.txt`,
		Args:    rejectArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			ref := args[0]
			if !strings.HasPrefix(ref, outputs.SharedPrefix) {
				f, err := os.Open(ref)
				if err != nil {
					return fmt.Errorf("output %s: %w", ref, err)
				}
				defer f.Close()
				_, err = io.Copy(a.out, f)
				return err
			}
			files, err := filesconfig.Open(a.cfg.Workspace)
			if err != nil {
				return err
			}
			if files == nil {
				return rejectf("output: no workspace.store is configured")
			}
			r, err := files.Store.Get(cmd.Context(), ref)
			if err != nil {
				return fmt.Errorf("output %s: %w", ref, err)
			}
			defer r.Close()
			_, err = io.Copy(a.out, r)
			return err
		},
	}
}

// outputCommand says how to read a kept output.
func outputCommand(ref string) string {
	if strings.HasPrefix(ref, outputs.SharedPrefix) {
		return "planmode output " + ref
	}
	return ref
}
