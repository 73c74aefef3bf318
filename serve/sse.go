package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/planmode/planmode/signals"
)

// resumePoint reads where a follower resumes: after the Last-Event-ID
// header (which a browser's EventSource sends when it reconnects), else
// after the query's after, else from the start. Either must be a plain
// non-negative decimal; anything else is refused rather than read as 0,
// which would replay the whole log.
func resumePoint(r *http.Request) (int64, error) {
	name, vs := "Last-Event-ID", r.Header.Values("Last-Event-ID")
	if len(vs) == 0 {
		name, vs = "after", r.URL.Query()["after"]
	}
	switch {
	case len(vs) == 0:
		return 0, nil
	case len(vs) > 1:
		return 0, fmt.Errorf("%s is given %d times: give it once", name, len(vs))
	}
	v := vs[0]
	if v == "" {
		return 0, fmt.Errorf("%s is empty: want a sequence number, 0 or more", name)
	}
	if len(v) > 19 || v[0] == '+' || v[0] == '-' {
		return 0, fmt.Errorf("%s %q: want a sequence number, 0 or more", name, clip(v))
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s %q: want a sequence number, 0 or more", name, clip(v))
	}
	return n, nil
}

// clip shortens a value quoted back to the client.
func clip(s string) string {
	if len(s) > 32 {
		return s[:32] + "…"
	}
	return s
}

// events streams the plan's events as Server-Sent Events until the plan
// ends, the client leaves, a write does not complete within WriteTimeout
// or the server stops.
func (s *Server) events(w http.ResponseWriter, r *http.Request, c Caller) {
	after, err := resumePoint(r)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	id, tenant, ok := s.plan(w, r, c)
	if !ok {
		return
	}
	// A stream outlives the check of its request: the token is looked at
	// again at every heartbeat, so that revoking it, or taking the plan's
	// tenant from it, ends the streams it holds open too.
	tok, _ := bearer(r)
	allowed := func() bool {
		now, ok := s.tokens.lookup(tok)
		return ok && now.mayFollow(tenant)
	}
	s.streams.Add(1)
	defer s.streams.Add(-1)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	// Proxies that buffer answers (nginx) would hold events back.
	h.Set("X-Accel-Buffering", "no")
	out := &sseWriter{w: w, rc: http.NewResponseController(w), timeout: s.cfg.WriteTimeout}
	w.WriteHeader(http.StatusOK)
	if err := out.flush(); err != nil {
		return
	}
	if err := s.stream(r.Context(), out, id, after, allowed); err != nil && r.Context().Err() == nil {
		s.log.Info("event stream ended", "plan", id, "identity", c.Identity, "err", err)
	}
}

// errRevoked ends the stream of a token revoked, or no longer allowed the
// plan, since the stream began.
var errRevoked = errors.New("the token was revoked or no longer sees this plan's tenant")

// stream writes the plan's events to out, and a ping whenever Heartbeat
// passes without one, as long as allowed, asked every Heartbeat, says the
// caller may still see the plan. A goroutine pulls the events and hands
// them over one at a time, so that the stream holds at most one event
// besides the write being made (at most maxWriteBytes of events) however
// slowly the client reads.
func (s *Server) stream(ctx context.Context, out *sseWriter, id string, after int64, allowed func() bool) error {
	type item struct {
		ev  signals.Event
		err error
	}
	ctx, cancel := context.WithCancel(ctx)
	items := make(chan item)
	go func() {
		defer close(items)
		for ev, err := range s.hub.follow(ctx, id, after) {
			select {
			case items <- item{ev, err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	// End the puller's ctx and wait for it to stop, so that the stream's
	// follow ends with the stream.
	defer func() {
		cancel()
		for range items {
		}
	}()
	ping := time.NewTimer(s.cfg.Heartbeat)
	defer ping.Stop()
	// Not reset by events: a busy stream is checked as often as an idle one.
	recheck := time.NewTicker(s.cfg.Heartbeat)
	defer recheck.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case it, ok := <-items:
			// The events the plan has ready go out in one write, up to
			// maxWriteBytes: a busy plan's followers cost one write and
			// flush per batch, not per event.
			out.buf.Reset()
			for ok && it.err == nil {
				if err := out.add(it.ev); err != nil {
					return err
				}
				if out.buf.Len() >= maxWriteBytes {
					break
				}
				select {
				case it, ok = <-items:
					continue
				default:
				}
				break
			}
			if err := out.write(); err != nil {
				return err
			}
			if !ok {
				out.finish() // the plan's log ended
				return nil
			}
			if it.err != nil {
				_ = out.failure(id, it.err)
				return it.err
			}
		case <-recheck.C:
			if !allowed() {
				return errRevoked
			}
			continue
		case <-ping.C:
			if err := out.comment("ping"); err != nil {
				return err
			}
		}
		ping.Reset(s.cfg.Heartbeat)
	}
}

// sseWriter writes Server-Sent Events, each with a deadline: a write the
// client does not take in time fails, and the stream ends.
type sseWriter struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
	buf     bytes.Buffer
}

// maxWriteBytes bounds the events one write carries.
const maxWriteBytes = 32 << 10

// add adds ev to the next write as id (its Seq; none for a model call's
// text, which is not in the log and cannot be resumed after), event (its
// type) and data (its JSON).
func (o *sseWriter) add(ev signals.Event) error {
	data, err := json.Marshal(ev)
	if err != nil {
		return fmt.Errorf("event %d: %w", ev.Seq, err)
	}
	if ev.Type != signals.EventModelText {
		fmt.Fprintf(&o.buf, "id: %d\n", ev.Seq)
	}
	// A type is kebab-case, but a Source is not trusted to keep it so: a
	// new line in it would forge fields.
	if t := string(ev.Type); t != "" && !bytes.ContainsAny([]byte(t), "\r\n") {
		fmt.Fprintf(&o.buf, "event: %s\n", t)
	}
	fmt.Fprintf(&o.buf, "data: %s\n\n", data)
	return nil
}

// failure tells the client, in an error event, that the plan's events
// could not be read, and asks it to wait retryAfter before it resumes:
// an EventSource reconnects by itself, and a failing Source should not
// be asked again at once by every follower. The cause is not said: it
// may name the servers behind this one (the handler logs it).
func (o *sseWriter) failure(id string, err error) error {
	msg := "the plan's events could not be read; try again"
	if errors.Is(err, ErrUnknownPlan) {
		msg = "no plan " + id
	}
	data, _ := json.Marshal(map[string]string{"error": msg})
	o.buf.Reset()
	fmt.Fprintf(&o.buf, "retry: %d\nevent: error\ndata: %s\n\n", retryAfter.Milliseconds(), data)
	return o.write()
}

// retryAfter is how long a client waits before it resumes after an error
// event.
const retryAfter = 5 * time.Second

// comment writes a comment line, which clients ignore.
func (o *sseWriter) comment(text string) error {
	o.buf.Reset()
	fmt.Fprintf(&o.buf, ": %s\n\n", text)
	return o.write()
}

// write writes the buffer and flushes it within the timeout.
func (o *sseWriter) write() error {
	if err := o.rc.SetWriteDeadline(time.Now().Add(o.timeout)); err != nil {
		return err
	}
	if _, err := o.w.Write(o.buf.Bytes()); err != nil {
		return err
	}
	return o.flush()
}

// flush sends what was written within the timeout.
func (o *sseWriter) flush() error {
	if err := o.rc.SetWriteDeadline(time.Now().Add(o.timeout)); err != nil {
		return err
	}
	if err := o.rc.Flush(); err != nil {
		return fmt.Errorf("write to the client: %w", err)
	}
	return nil
}

// finish gives the end of the answer, which the server writes once the
// handler returns, a deadline of its own: the last one may have passed
// while the stream was idle.
func (o *sseWriter) finish() {
	_ = o.rc.SetWriteDeadline(time.Now().Add(o.timeout))
}
