package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
)

// followFlags are watch's flags for following the event log.
type followFlags struct {
	follow bool
	from   int64
	text   bool
}

// followLog prints plan id's event log after f.from as it happens, until
// the plan ends: a line per event, or under --output json one JSON object
// per line (JSON Lines), each with its seq. It returns the error result
// returns for the same plan, so watch --follow exits as result does.
func followLog(ctx context.Context, d *deps, id string, f followFlags) error {
	if f.from < 0 {
		return rejectf(fmt.Sprintf("--from %d: want a seq of 0 or more", f.from))
	}
	if !f.follow {
		return rejectf("--from and --text go with --follow")
	}
	pc, err := d.plans(ctx)
	if err != nil {
		return err
	}
	var opts []planclient.FollowOption
	if f.text {
		opts = append(opts, planclient.WithModelText(0))
	}
	p := logPrinter{out: d.out, json: d.output == outputJSON}
	for e, err := range pc.Events(ctx, id, f.from, opts...) {
		if err != nil {
			p.endText()
			return err
		}
		if err := p.print(e); err != nil {
			return err
		}
	}
	p.endText()
	// The plan ended: exit as result does for it.
	res, err := pc.Result(ctx, id)
	if err != nil {
		return err
	}
	if res.Status == signals.StatusFailed || res.Status == signals.StatusCancelled {
		return &endedError{status: res.Status}
	}
	return nil
}

// logPrinter prints events as watch --follow does.
type logPrinter struct {
	out  io.Writer
	json bool
	// inText is set while the last thing printed is model text without
	// its line's end.
	inText bool
}

// print writes one event: a JSON line, or a line a person reads. Model
// text is written as it comes, on lines of its own.
func (p *logPrinter) print(e signals.Event) error {
	if p.json {
		if err := json.NewEncoder(p.out).Encode(e); err != nil {
			return fmt.Errorf("write JSON: %w", err)
		}
		return nil
	}
	if e.Type == signals.EventModelText {
		var d signals.ModelTextDelta
		_ = json.Unmarshal(e.Data, &d)
		if d.Restarted {
			p.endText()
			fmt.Fprintf(p.out, "      ↻ %s call started over (attempt %d)\n", d.Phase, d.Attempt)
		}
		if d.Skipped > 0 {
			fmt.Fprintf(p.out, "…(%d bytes)…", d.Skipped)
		}
		fmt.Fprint(p.out, d.Text)
		p.inText = !strings.HasSuffix(d.Text, "\n")
		return nil
	}
	p.endText()
	_, err := fmt.Fprintf(p.out, "%5d %s %-22s %s\n", e.Seq, e.At.Local().Format("15:04:05"), e.Type, oneLine(e.Message))
	return err
}

// endText ends a line of model text before anything else is printed.
func (p *logPrinter) endText() {
	if p.inText {
		fmt.Fprintln(p.out)
		p.inText = false
	}
}

// oneLine is s on one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
