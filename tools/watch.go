package tools

import (
	"context"
	"os"
	"strings"
	"sync"
	"time"
)

// How often a running command is looked at: its processes (a cgroup's
// counters, or /proc) often, its workspace, a walk of the whole tree,
// less often and less still when the walk takes long.
const (
	processPoll      = 100 * time.Millisecond
	workspacePoll    = 250 * time.Millisecond
	maxWorkspacePoll = 5 * time.Second
)

// watchdog looks at a running command and stops it at the first limit it
// passes that the kernel does not stop by itself: a fork refused at the
// process limit (or, with no cgroup, more processes than the limit), a
// process killed at the memory limit, the workspace grown past its limits.
type watchdog struct {
	limits Limits
	st     *started
	pid    int      // the command's first process
	ws     *Sandbox // its workspace
	base   int64    // what the workspace held before it
	stop   context.CancelCauseFunc
	quit   chan struct{}
	wg     sync.WaitGroup
	mu     sync.Mutex
	first  *limitBreach
}

// watch starts a watchdog over the command st, whose first process is
// pid, run in ws, which held base bytes before it; stop kills it.
func (s CommandSandbox) watch(st *started, pid int, ws *Sandbox, base int64, stop context.CancelCauseFunc) *watchdog {
	w := &watchdog{limits: s.limits, st: st, pid: pid, ws: ws, base: base, stop: stop, quit: make(chan struct{})}
	w.wg.Add(2)
	go w.poll(processPoll, processPoll, w.checkProcesses)
	go w.poll(workspacePoll, maxWorkspacePoll, w.checkWorkspace)
	return w
}

// poll runs check every interval, more seldom (up to most) when a check
// takes long, until a check finds a limit passed or the watchdog quits.
func (w *watchdog) poll(every, most time.Duration, check func() *limitBreach) {
	defer w.wg.Done()
	t := time.NewTimer(every)
	defer t.Stop()
	for {
		select {
		case <-w.quit:
			return
		case <-t.C:
		}
		began := time.Now()
		if b := check(); b != nil {
			w.trip(b)
			return
		}
		t.Reset(min(most, max(every, 2*time.Since(began))))
	}
}

// trip records b, unless a limit was passed before, and kills the command.
func (w *watchdog) trip(b *limitBreach) {
	w.mu.Lock()
	if w.first == nil {
		w.first = b
	}
	w.mu.Unlock()
	w.stop(b)
	if w.st.cg != nil {
		w.st.cg.kill() // the processes that left the sandbox's tree too
	}
}

func (w *watchdog) checkProcesses() *limitBreach {
	if w.st.cg != nil {
		return w.st.cg.breach(w.limits)
	}
	if countTasks(w.pid) > w.limits.Processes {
		return processBreach(w.limits)
	}
	return nil
}

func (w *watchdog) checkWorkspace() *limitBreach {
	size, err := w.ws.measure()
	if err != nil {
		return nil // the workspace root itself is gone: nothing grows
	}
	return workspaceBreach(w.limits, w.base, size)
}

// finish stops the watchdog once the command has ended and returns the
// first limit the command passed: found while it ran, or now in its
// cgroup's counters, its exit or the workspace it left. killed says the
// worker killed it (a timeout, a cancellation, the watchdog), failed that
// it failed, and output is its output's tail.
func (w *watchdog) finish(state *os.ProcessState, killed, failed bool, output string) *limitBreach {
	close(w.quit)
	w.wg.Wait()
	if w.first != nil {
		return w.first
	}
	if w.st.cg != nil {
		if b := w.st.cg.breach(w.limits); b != nil {
			return b
		}
	}
	if b := exitBreach(state, w.limits, killed); b != nil {
		return b
	}
	if b := w.checkWorkspace(); b != nil {
		return b
	}
	if failed && w.st.cg == nil && shortOfMemory(output) {
		return memoryBreach(w.limits, true)
	}
	return nil
}

// outOfMemory are what programs say when an allocation fails, lower-cased.
var outOfMemory = []string{"cannot allocate memory", "memory exhausted", "out of memory", "memoryerror",
	"bad_alloc", "failed to reserve"}

// shortOfMemory reports whether a command's output says it ran out of
// memory: without a cgroup, the memory limit is an address space limit
// whose breach only the program itself sees, as a failed allocation.
func shortOfMemory(output string) bool {
	output = strings.ToLower(output)
	for _, s := range outOfMemory {
		if strings.Contains(output, s) {
			return true
		}
	}
	return false
}
