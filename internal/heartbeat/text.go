package heartbeat

import (
	"context"
	"sync"
	"unicode/utf8"

	"go.temporal.io/sdk/activity"

	"github.com/planmode/planmode/signals"
)

// WithText returns ctx, of a running activity, in which the text of the
// activity's model calls, as it arrives, is its heartbeat: a
// signals.ModelText naming stepID, which a person following the plan
// reads from the pending activity (planclient.Client.RunningText). The
// text of an activity's calls runs on, each call on a new line, so that
// what a follower saw stays the start of what it sees next; the
// heartbeats of the parts the activity calls (Recorder, Start) carry it
// too (WithDetails). Outside an activity it returns ctx.
func WithText(ctx context.Context, stepID string) context.Context {
	if !activity.IsActivity(ctx) {
		return ctx
	}
	t := &Text{ctx: ctx, stepID: stepID}
	return WithDetails(context.WithValue(ctx, textKey{}, t), t.details)
}

// textKey is the context key of an activity's Text.
type textKey struct{}

// TextOf returns the text WithText keeps for ctx's activity, or nil when
// its calls do not stream.
func TextOf(ctx context.Context) *Text {
	t, _ := ctx.Value(textKey{}).(*Text)
	return t
}

// Text is the text of an activity's model calls as it arrives: how
// many bytes, and the end of it in a buffer that never holds more than
// twice signals.MaxModelTextBytes. Its calls add to it from the activity's
// goroutine while the heartbeat ticker reads it from its own.
type Text struct {
	ctx    context.Context
	stepID string

	mu      sync.Mutex
	phase   string
	started bool
	bytes   int64
	buf     []byte
}

// Begin starts a call of phase and returns its OnText. The activity's
// first call heartbeats at once, without text, so that its heartbeat
// shows this attempt's call rather than what an earlier attempt left on
// the server; a later call goes on on a new line.
func (t *Text) Begin(phase string) func(delta string) {
	t.mu.Lock()
	first := !t.started
	t.phase, t.started = phase, true
	if n := len(t.buf); n > 0 && t.buf[n-1] != '\n' {
		t.write("\n")
	}
	d := t.current()
	t.mu.Unlock()
	if first {
		activity.RecordHeartbeat(t.ctx, d)
	}
	return t.add
}

// add takes a delta of the text and heartbeats the text so far. The SDK
// sends at most one heartbeat per throttle interval, the last one
// recorded, so heartbeating each delta costs no more calls to the server.
func (t *Text) add(delta string) {
	t.mu.Lock()
	t.write(delta)
	d := t.current()
	t.mu.Unlock()
	activity.RecordHeartbeat(t.ctx, d)
}

// write adds s to the text, keeping at least its last
// signals.MaxModelTextBytes bytes in buf. t.mu is held.
func (t *Text) write(s string) {
	const keep = signals.MaxModelTextBytes
	t.bytes += int64(len(s))
	if t.buf == nil {
		t.buf = make([]byte, 0, 2*keep)
	}
	switch {
	case len(s) >= keep:
		t.buf = append(t.buf[:0], s[len(s)-keep:]...)
		return
	case len(t.buf)+len(s) > 2*keep:
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-(keep-len(s)):]...)
	}
	t.buf = append(t.buf, s...)
}

// current is the heartbeat of the text so far: its last
// signals.MaxModelTextBytes bytes, cut forward to a rune boundary. t.mu
// is held.
func (t *Text) current() signals.ModelText {
	tail := t.buf[max(0, len(t.buf)-signals.MaxModelTextBytes):]
	for len(tail) > 0 && !utf8.RuneStart(tail[0]) {
		tail = tail[1:]
	}
	return signals.ModelText{Phase: t.phase, StepID: t.stepID, Bytes: t.bytes, Text: string(tail)}
}

// details is what the activity's heartbeats carry (heartbeat.WithDetails):
// the text so far once a call began, else nil, leaving each beat its own.
func (t *Text) details() any {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.started {
		return nil
	}
	return t.current()
}
