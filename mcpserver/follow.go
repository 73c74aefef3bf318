package mcpserver

import (
	"context"
	"fmt"
	"iter"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/signals"
)

// eventSource reads a plan's event log; a *planclient.Client is one. A
// Plans that is none sends no notifications.
type eventSource interface {
	Events(ctx context.Context, planID string, after int64, opts ...planclient.FollowOption) iter.Seq2[signals.Event, error]
}

var _ eventSource = (*planclient.Client)(nil)

// Bounds of the notifications a task's follower sends.
const (
	// NotifyEvery is the least time between two notifications of one
	// follower: events that come faster are told together.
	NotifyEvery = 300 * time.Millisecond
	// MaxFollowers bounds the tasks a server follows for sessions at once
	// (past it a task-augmented call is answered and not followed).
	MaxFollowers = 64
	// maxFollow bounds how long a session's task is followed.
	maxFollow = 24 * time.Hour
)

// follows are the tasks a server follows, by session, so a session is
// told of each task once.
type follows struct {
	mu  sync.Mutex
	set map[followKey]struct{}
}

type followKey struct {
	ss *mcp.ServerSession
	id string
}

// take marks (ss, id) followed; false when it already is or MaxFollowers
// are.
func (f *follows) take(ss *mcp.ServerSession, id string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	k := followKey{ss, id}
	if _, ok := f.set[k]; ok || len(f.set) >= MaxFollowers {
		return false
	}
	if f.set == nil {
		f.set = map[followKey]struct{}{}
	}
	f.set[k] = struct{}{}
	return true
}

func (f *follows) drop(ss *mcp.ServerSession, id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.set, followKey{ss, id})
}

// followSession follows task id for session ss after a task-augmented
// call: until the task ends, the session closes or maxFollow passed.
func (s *server) followSession(ss *mcp.ServerSession, id string, token any) {
	if s.stateless || ss == nil || !s.follows.take(ss, id) {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), maxFollow)
	go func() {
		_ = ss.Wait()
		cancel()
	}()
	go func() {
		defer cancel()
		defer s.follows.drop(ss, id)
		(&follower{s: s, ss: ss, id: id, token: token}).run(ctx)
	}()
}

// followCall follows task id for ss while a call (tasks/result) waits;
// the returned func stops it. A task the session already follows is not
// followed twice.
func (s *server) followCall(ctx context.Context, ss *mcp.ServerSession, id string, token any) func() {
	if s.stateless || ss == nil || !s.follows.take(ss, id) {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer s.follows.drop(ss, id)
		(&follower{s: s, ss: ss, id: id, token: token}).run(ctx)
	}()
	return func() {
		cancel()
		<-done
	}
}

// stepNews is what a follower learned from the log since it last told.
type stepNews struct {
	mu      sync.Mutex
	message string
	fresh   bool
}

func (n *stepNews) set(m string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.message, n.fresh = m, true
}

func (n *stepNews) take() (string, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	m, ok := n.message, n.fresh
	n.fresh = false
	return m, ok
}

// follower tells session ss of the changes of task id (with token, its
// progress): what it last told, and what the log said since.
type follower struct {
	s     *server
	ss    *mcp.ServerSession
	id    string
	token any
	last  Task
	news  stepNews
}

// run reads plan id's event log and, each time an event may have moved
// the task, sends ss notifications/tasks/status when its status or
// message changed and, with a progress token, notifications/progress of
// its steps. The log is read on its own goroutine and only wakes the
// sender, so a slow host never holds it, and the sender tells at most
// once every NotifyEvery: events that came meanwhile are told together
// (the history a follower starts from is one notification).
func (f *follower) run(ctx context.Context) {
	src, ok := f.s.plans.(eventSource)
	if !ok {
		return
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	wake, ended := make(chan struct{}, 1), make(chan struct{})
	go func() {
		defer close(ended)
		for ev, err := range src.Events(ctx, f.id, 0) {
			if err != nil || !moves(ev.Type) {
				if err != nil {
					return
				}
				continue
			}
			if m, ok := stepMessage(ev); ok {
				f.news.set(m)
			}
			select {
			case wake <- struct{}{}:
			default:
			}
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return
		case <-wake:
		case <-ended:
			f.tell(ctx)
			return
		}
		if f.tell(ctx) {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(NotifyEvery):
		}
	}
}

// tell sends what changed of the task since it last told, and reports
// whether the task ended (or cannot be read any more).
func (f *follower) tell(ctx context.Context) bool {
	qctx, cancel := context.WithTimeout(ctx, f.s.timeout)
	defer cancel()
	t, err := f.s.task(qctx, f.id)
	if err != nil {
		return ctx.Err() == nil && isNoTask(err)
	}
	if t.Status != f.last.Status || t.StatusMessage != f.last.StatusMessage {
		if notify(ctx, f.ss, MethodTaskStatus, t) == nil {
			f.last = t
		}
	}
	if m, ok := f.news.take(); ok && f.token != nil {
		f.tellProgress(qctx, m)
	}
	return t.Status.terminal()
}

// tellProgress sends the steps the plan has done of its steps, tied to
// its task as MCP asks of a task's messages.
func (f *follower) tellProgress(ctx context.Context, msg string) {
	st, err := f.s.plans.Standing(ctx, f.id)
	if err != nil || st.Progress == nil || st.Progress.Totals.Total == 0 {
		return
	}
	tot := st.Progress.Totals
	_ = f.ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: f.token,
		Progress: float64(tot.Done()), Total: float64(tot.Total), Message: msg,
		Meta: mcp.Meta{relatedTaskKey: map[string]any{"taskId": f.id}}})
}

// isNoTask reports whether err is errNoTask's.
func isNoTask(err error) bool { return strings.Contains(err.Error(), "task not found") }

// moves reports whether an event of type t may change a task's status or
// message, or its steps done.
func moves(t signals.EventType) bool {
	switch t {
	case signals.EventPhaseChanged, signals.EventAwaitingChanged, signals.EventAwaitingSelection,
		signals.EventAwaitingClarification, signals.EventAwaitingConfirmation, signals.EventApprovalRequested,
		signals.EventApprovalDecided, signals.EventStepCompleted, signals.EventStepFailed, signals.EventStepSkipped,
		signals.EventPaused, signals.EventResumed, signals.EventEnded, signals.EventGap:
		return true
	}
	return false
}

// stepMessage is the progress message of a step's event: "step s3
// completed: …".
func stepMessage(ev signals.Event) (string, bool) {
	verb, ok := map[signals.EventType]string{signals.EventStepCompleted: "completed",
		signals.EventStepFailed: "failed", signals.EventStepSkipped: "skipped"}[ev.Type]
	if !ok {
		return "", false
	}
	step := "?"
	if ev.Step != nil {
		step = ev.Step.ID
	}
	return fmt.Sprintf("step %s %s: %s", step, verb, ev.Message), true
}
