package workspace

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/planmode/planmode/blobstore"
)

// CollectRequest says what Collect may remove.
type CollectRequest struct {
	Now time.Time
	// Retention is how long a closed plan keeps its manifests; zero or
	// less keeps them as long as the plan is known.
	Retention time.Duration
	// Grace is how old an unreferenced manifest or blob must be to go: a
	// record in flight puts its blobs before its manifest, and its
	// manifest before its pin.
	Grace  time.Duration
	DryRun bool // count what would go, remove nothing
	// PlanState says whether a plan is open, or when it closed; a plan it
	// does not know is (false, zero time, nil). An error stops Collect
	// before it removes anything.
	PlanState func(ctx context.Context, planID string) (open bool, closedAt time.Time, err error)
}

// Collected counts what Collect removed (or would have, in a dry run).
type Collected struct {
	Pins, Manifests, Blobs int
	Bytes                  int64
	Sample                 []string // at most 50 of the keys removed
}

// maxSample bounds Collected.Sample.
const maxSample = 50

// Collect removes what no plan references any more. Pins of an open plan
// stay, and those of a plan closed within Retention; a plan closed longer
// ago, or unknown, loses its pins. Then every manifest a remaining pin
// names, and every manifest younger than Grace, keeps the manifests it
// lists changes to, down its chain, and the blobs all of them name;
// manifests and blobs kept by none and older than Grace are removed. A
// kept manifest that cannot be read stops it before it removes anything.
func (f *Files) Collect(ctx context.Context, req CollectRequest) (Collected, error) {
	if req.PlanState == nil {
		return Collected{}, errors.New("collect: no PlanState")
	}
	cutoff := req.Now.Add(-req.Grace)
	drop, kept, err := f.sortPins(ctx, req)
	if err != nil {
		return Collected{}, err
	}
	manifests, err := f.list(ctx, manifestsPrefix)
	if err != nil {
		return Collected{}, err
	}
	for _, m := range manifests {
		if m.ModTime.After(cutoff) {
			kept[strings.TrimPrefix(m.Key, manifestsPrefix)] = true
		}
	}
	marked, err := f.mark(ctx, kept)
	if err != nil {
		return Collected{}, err
	}
	blobs, err := f.list(ctx, blobsPrefix)
	if err != nil {
		return Collected{}, err
	}
	g := &collector{f: f, dry: req.DryRun}
	err = g.remove(ctx, drop, &g.out.Pins, func(blobstore.Info) bool { return true })
	if err == nil {
		err = g.remove(ctx, manifests, &g.out.Manifests, func(i blobstore.Info) bool {
			return !marked[i.Key] && i.ModTime.Before(cutoff)
		})
	}
	if err == nil {
		err = g.remove(ctx, blobs, &g.out.Blobs, func(i blobstore.Info) bool {
			return !marked[i.Key] && i.ModTime.Before(cutoff)
		})
	}
	return g.out, err
}

// sortPins returns the pins to drop and the manifest ids kept pinned.
func (f *Files) sortPins(ctx context.Context, req CollectRequest) ([]blobstore.Info, map[string]bool, error) {
	pins, err := f.list(ctx, pinsPrefix)
	if err != nil {
		return nil, nil, err
	}
	byPlan := map[string][]blobstore.Info{}
	for _, p := range pins {
		parts := strings.Split(p.Key, "/")
		if len(parts) == 3 && ValidManifestID(parts[2]) {
			byPlan[parts[1]] = append(byPlan[parts[1]], p)
		}
	}
	var drop []blobstore.Info
	kept := map[string]bool{}
	for _, key := range slices.Sorted(maps.Keys(byPlan)) {
		group := byPlan[key]
		planID, err := f.getAll(ctx, group[0].Key, 64<<10)
		if err != nil {
			return nil, nil, fmt.Errorf("collect: read pin %s: %w", group[0].Key, err)
		}
		open, closedAt, err := req.PlanState(ctx, string(planID))
		if err != nil {
			return nil, nil, fmt.Errorf("collect: state of plan %s: %w", planID, err)
		}
		known := open || !closedAt.IsZero()
		if known && (open || req.Retention <= 0 || req.Now.Sub(closedAt) <= req.Retention) {
			for _, p := range group {
				kept[p.Key[strings.LastIndexByte(p.Key, '/')+1:]] = true
			}
			continue
		}
		drop = append(drop, group...)
	}
	return drop, kept, nil
}

// mark returns the keys the manifests ids keep: their own, those of the
// bases down each one's chain, and the blobs any of them lists — a
// delta's base keeps the blobs of the files the delta left alone. A
// missing manifest keeps nothing more; one that cannot be read is an
// error.
func (f *Files) mark(ctx context.Context, ids map[string]bool) (map[string]bool, error) {
	marked := map[string]bool{}
	for _, id := range slices.Sorted(maps.Keys(ids)) {
		for next := id; next != "" && !marked[manifestKey(next)]; {
			s, err := f.loadStored(ctx, next)
			if errors.Is(err, blobstore.ErrNotFound) {
				break
			}
			if err != nil {
				return nil, fmt.Errorf("collect: %w", err)
			}
			marked[manifestKey(next)] = true
			for _, e := range s.Entries {
				if e.Kind == EntryFile {
					marked[blobKey(e.Hash)] = true
				}
			}
			next = s.Base
		}
	}
	return marked, nil
}

// list returns the store's blobs under prefix, sorted by key.
func (f *Files) list(ctx context.Context, prefix string) ([]blobstore.Info, error) {
	var out []blobstore.Info
	err := f.Store.List(ctx, prefix, func(i blobstore.Info) error {
		out = append(out, i)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("collect: list %s: %w", prefix, err)
	}
	slices.SortFunc(out, func(a, b blobstore.Info) int { return strings.Compare(a.Key, b.Key) })
	return out, nil
}

// collector removes blobs and counts them.
type collector struct {
	f   *Files
	dry bool
	out Collected
}

// remove removes the blobs of infos that gone says should go, counting
// them in n.
func (g *collector) remove(ctx context.Context, infos []blobstore.Info, n *int, gone func(blobstore.Info) bool) error {
	for _, i := range infos {
		if !gone(i) {
			continue
		}
		if !g.dry {
			if err := g.f.Store.Delete(ctx, i.Key); err != nil {
				return fmt.Errorf("collect: delete %s: %w", i.Key, err)
			}
		}
		*n++
		g.out.Bytes += i.Size
		if len(g.out.Sample) < maxSample {
			g.out.Sample = append(g.out.Sample, i.Key)
		}
	}
	return nil
}
