// Command bench measures what planmode costs as plans grow and as many run
// at once, on a Temporal dev server of its own with the offline model (no
// network): the orchestration overhead against a bare workflow running
// the same activities, history bytes and events per step, prompt tokens
// per step, concurrent plans per second with the worker's memory, memory
// per plan waiting for a selection, and the latency of operator updates
// and queries under load. It prints one table; -json writes the rows as
// JSON too. `make bench` runs it; docs/benchmarks.md explains each row.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
)

// Sections, in the order they run and print.
const (
	secRatio       = "ratio"
	secHistory     = "history"
	secTokens      = "tokens"
	secAgentPlan   = "agentplan"
	secConcurrency = "concurrency"
	secMemory      = "memory"
	secLatency     = "latency"
	secCPU         = "cpu"
	secFairness    = "fairness"
	secWorkspace   = "workspace"
	secFollow      = "follow"
	secFollowers   = "followers"
	secStream      = "stream"
	secBurst       = "burst"
)

var allSections = []string{secRatio, secHistory, secCPU, secTokens, secAgentPlan, secConcurrency, secFairness, secMemory, secLatency,
	secFollow, secFollowers, secStream, secWorkspace, secBurst}

func main() {
	quick := flag.Bool("quick", false, "small sizes, a minute or two")
	only := flag.String("only", "", "comma-separated sections to run: "+strings.Join(allSections, ","))
	jsonPath := flag.String("json", "", "also write the rows as JSON to this file (- for stdout)")
	keep := flag.Bool("keep", false, "keep the work folder (worker logs) instead of removing it at the end")
	variants := flag.String("variants", "", "comma-separated latency worker variants to run (default, pollers 8/8, …), all when empty")
	flag.Parse()
	sections, err := parseSections(*only)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	sz := sizesFor(*quick)
	if sz.LatencyVariants, err = pickVariants(sz.LatencyVariants, *variants); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
	rep, err := run(ctx, sz, sections, *keep, os.Stderr)
	if rep != nil {
		rep.print(os.Stdout)
		if *jsonPath != "" {
			if werr := writeJSON(*jsonPath, rep); werr != nil && err == nil {
				err = werr
			}
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		stop()
		os.Exit(1)
	}
}

// parseSections turns -only into the sections to run, all when empty.
func parseSections(only string) ([]string, error) {
	if strings.TrimSpace(only) == "" {
		return allSections, nil
	}
	var out []string
	for _, s := range strings.Split(only, ",") {
		s = strings.TrimSpace(s)
		if !slices.Contains(allSections, s) {
			return nil, fmt.Errorf("-only: unknown section %q; want some of %s", s, strings.Join(allSections, ","))
		}
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out, nil
}

// run starts the dev server and the in-process worker, runs sections in
// their order with progress lines on logw (keep leaves the work folder), and returns the report, with
// the rows measured so far when a section fails.
func run(ctx context.Context, sz sizes, sections []string, keep bool, logw io.Writer) (*report, error) {
	rep := newReport(sz)
	r, err := startRig(ctx, keep, logw)
	if err != nil {
		return nil, err
	}
	defer r.stop()
	steps := map[string]func(context.Context, *rig, sizes, *report) error{
		secRatio: measureRatio, secHistory: measureHistory, secCPU: measureCPU, secTokens: measureTokens, secAgentPlan: measureAgentPlan,
		secConcurrency: measureConcurrency, secFairness: measureFairness, secMemory: measureMemory, secLatency: measureLatency,
		secWorkspace: measureWorkspace, secFollow: measureFollow, secFollowers: measureFollowers, secStream: measureStream,
		secBurst: measureBurst,
	}
	for _, s := range allSections {
		if !slices.Contains(sections, s) {
			continue
		}
		r.logf("== %s", s)
		if err := steps[s](ctx, r, sz, rep); err != nil {
			return rep, fmt.Errorf("%s: %w", s, err)
		}
	}
	return rep, nil
}

// writeJSON writes rep to path, or to stdout for "-".
func writeJSON(path string, rep *report) error {
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if path == "-" {
		_, err = os.Stdout.Write(b)
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// pickVariants keeps the variants -variants names, all when it is empty.
func pickVariants(all []workerVariant, names string) ([]workerVariant, error) {
	if strings.TrimSpace(names) == "" {
		return all, nil
	}
	var out []workerVariant
	for _, n := range strings.Split(names, ",") {
		i := slices.IndexFunc(all, func(v workerVariant) bool { return v.Name == strings.TrimSpace(n) })
		if i < 0 {
			return nil, fmt.Errorf("unknown latency variant %q", n)
		}
		out = append(out, all[i])
	}
	return out, nil
}
