package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/planmode/planmode/internal/config"
	"github.com/planmode/planmode/outputs"
	"github.com/planmode/planmode/workspace/filesconfig"
)

func newOutputCmd(d *deps) *cobra.Command {
	return &cobra.Command{
		Use:   "output <ref>",
		Short: "Print the whole of a step's output that the plan keeps only the head of",
		Long: `Print a kept output by the reference a step's result names (planmode show lists them): a key in
workspace.store ("outputs/…"), readable from any host with that store, or a path on the worker that kept it.`,
		Example: `  planmode output outputs/plan-42/s3-tool-7-1a2b3c4d.txt`,
		Args:    rejectArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			return printOutput(cmd.Context(), d.out, d.cfg.Workspace, args[0])
		},
	}
}

// printOutput copies the kept output ref to out: from the store of ws
// when ref is a key there, else from the file ref names.
func printOutput(ctx context.Context, out io.Writer, ws config.Workspace, ref string) error {
	if !strings.HasPrefix(ref, outputs.SharedPrefix) {
		f, err := os.Open(ref)
		if err != nil {
			return fmt.Errorf("output %s: %w", ref, err)
		}
		defer f.Close()
		_, err = io.Copy(out, f)
		return err
	}
	files, err := filesconfig.Open(ws)
	if err != nil {
		return err
	}
	if files == nil {
		return rejectf("output: no workspace.store is configured")
	}
	r, err := files.Store.Get(ctx, ref)
	if err != nil {
		return fmt.Errorf("output %s: %w", ref, err)
	}
	defer r.Close()
	_, err = io.Copy(out, r)
	return err
}

// outputCommand says how to read a kept output.
func outputCommand(ref string) string {
	if strings.HasPrefix(ref, outputs.SharedPrefix) {
		return "planmode output " + ref
	}
	return ref
}
