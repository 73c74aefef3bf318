package main

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/planmode/planmode/activities"
	"github.com/planmode/planmode/llm/offline"
)

// phases whose prompt tokens the tokens section reports.
var tokenPhases = []string{activities.PhaseExecute, activities.PhaseReflect, activities.PhaseSummarize}

// measureRatio runs the same plan by PlanMode and by the bare workflow,
// alternating, on the in-process worker, and reports the median wall time
// per step of each and their ratio.
func measureRatio(ctx context.Context, r *rig, sz sizes, rep *report) error {
	n := sz.RatioSteps
	// A first run of each warms the caches, the connections and the
	// server's task queue.
	if _, err := runPlanMode(ctx, r.pc, r.id("warm"), 3); err != nil {
		return err
	}
	if _, err := runBare(ctx, r.srv.Client, inProcessQueue, r.id("warm-bare"), 3); err != nil {
		return err
	}
	var pm, bare []time.Duration
	for range sz.RatioRuns {
		p, err := runPlanMode(ctx, r.pc, r.id("ratio"), n)
		if err != nil {
			return err
		}
		b, err := runBare(ctx, r.srv.Client, inProcessQueue, r.id("ratio-bare"), n)
		if err != nil {
			return err
		}
		pm, bare = append(pm, p.elapsed), append(bare, b.elapsed)
		r.logf("ratio: %d steps, planmode %v, bare %v", n, p.elapsed.Round(time.Millisecond), b.elapsed.Round(time.Millisecond))
	}
	r.model.Reset()
	kase := fmt.Sprintf("%d llm steps", n)
	pmStep, bareStep := median(pm).Seconds()*1000/float64(n), median(bare).Seconds()*1000/float64(n)
	note := fmt.Sprintf("median of %d", sz.RatioRuns)
	rep.add(secRatio, kase, "planmode ms/step", pmStep, note)
	rep.add(secRatio, kase, "bare ms/step", bareStep, note)
	rep.add(secRatio, kase, "ratio", pmStep/bareStep, "target ≤ 1.15")
	return nil
}

// median returns the middle of ds (the upper one of an even count).
func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// planOfLength runs an external PlanMode plan of n steps alone on the
// model, recording the model's usage per phase; the history and tokens
// sections share the runs by length.
func planOfLength(ctx context.Context, r *rig, n int) (planRun, error) {
	if pr, ok := r.runs[n]; ok {
		return pr, nil
	}
	r.model.Reset()
	pr, err := runPlanMode(ctx, r.pc, r.id(fmt.Sprintf("steps%d", n)), n)
	if err != nil {
		return pr, err
	}
	pr.usage = map[string]offline.Usage{}
	for _, ph := range tokenPhases {
		pr.usage[ph] = r.model.Usage(ph)
	}
	r.model.Reset()
	r.runs[n] = pr
	r.logf("plan of %d steps: %v", n, pr.elapsed.Round(time.Millisecond))
	return pr, nil
}

// measureHistory reports history bytes and events per step of PlanMode
// plans of each length, summed over the continue-as-new chain, the
// biggest event kinds, and the bare workflow's bytes per step as the
// floor; then the long plan, when the sizes have one.
func measureHistory(ctx context.Context, r *rig, sz sizes, rep *report) error {
	for _, n := range sz.HistorySteps {
		if err := historyRow(ctx, r, rep, n, true); err != nil {
			return err
		}
	}
	if sz.LongSteps > 0 {
		return historyRow(ctx, r, rep, sz.LongSteps, false)
	}
	return nil
}

// historyRow measures one plan length, with the bare floor when withBare.
func historyRow(ctx context.Context, r *rig, rep *report, n int, withBare bool) error {
	pr, err := planOfLength(ctx, r, n)
	if err != nil {
		return err
	}
	st, err := measureChain(ctx, r.srv.Client, r.srv.Namespace, pr.id, pr.firstRunID)
	if err != nil {
		return err
	}
	kase := fmt.Sprintf("%d steps", n)
	rep.add(secHistory, kase, "bytes/step", float64(st.bytes)/float64(n), "top: "+st.topKinds(3))
	rep.add(secHistory, kase, "events/step", float64(st.events)/float64(n), fmt.Sprintf("%d events, %d bytes", st.events, st.bytes))
	note := fmt.Sprintf("completed in %.1fs", pr.elapsed.Seconds())
	if n > shortPromptsAbove {
		note += "; one-line prompts (start requests ≤ 256 KiB)"
	}
	rep.add(secHistory, kase, "runs", float64(st.runs), note)
	if !withBare {
		return nil
	}
	b, err := runBare(ctx, r.srv.Client, inProcessQueue, r.id(fmt.Sprintf("floor%d", n)), n)
	if err != nil {
		return err
	}
	r.model.Reset()
	bst, err := measureChain(ctx, r.srv.Client, r.srv.Namespace, b.id, b.firstRunID)
	if err != nil {
		return err
	}
	rep.add(secHistory, kase, "bare bytes/step", float64(bst.bytes)/float64(n),
		fmt.Sprintf("floor; planmode is %.2f×", float64(st.bytes)/float64(bst.bytes)))
	return nil
}

// measureTokens reports the prompt tokens the model saw per step in each
// phase for plans of each length, and the summary's per plan.
func measureTokens(ctx context.Context, r *rig, sz sizes, rep *report) error {
	for _, n := range sz.TokenSteps {
		pr, err := planOfLength(ctx, r, n)
		if err != nil {
			return err
		}
		kase := fmt.Sprintf("%d steps", n)
		for _, ph := range []string{activities.PhaseExecute, activities.PhaseReflect} {
			u := pr.usage[ph]
			rep.add(secTokens, kase, ph+" prompt tokens/step", float64(u.PromptTokens)/float64(n),
				fmt.Sprintf("%d per plan", u.PromptTokens))
		}
		u := pr.usage[activities.PhaseSummarize]
		rep.add(secTokens, kase, "summarize prompt tokens/plan", float64(u.PromptTokens), "one call")
	}
	return nil
}
