package tools

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// A command's first process is a shell that waits at a gate: it reads a
// line from descriptor 3 and only then execs the command (bubblewrap, or
// the program itself without a sandbox). Until the worker opens the gate
// nothing of the command runs and nothing forks, so the resource limits
// and the cgroup the worker gives that one process hold for every
// process the command will ever start. Without the line (the worker died
// or gave up) the shell exits without running anything.
const (
	gateShell  = "/bin/sh"
	gateScript = `IFS= read -r go <&3 && exec "$@" 3<&-`
	// gitconfigFD is the descriptor bubblewrap reads the sandbox's
	// /etc/gitconfig from (--file).
	gitconfigFD = 4
)

// gate is the worker's side of a command's gate.
type gate struct {
	w     *os.File   // the end the worker opens the gate with
	child []*os.File // the command's ends, closed here once it started
}

// newGate makes the pipes of a gated command: the gate, and with
// gitconfig one holding sandboxGitconfig for bubblewrap to read.
func newGate(gitconfig bool) (*gate, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("gate: %w", err)
	}
	g := &gate{w: w, child: []*os.File{r}}
	if gitconfig {
		cr, cw, err := os.Pipe()
		if err != nil {
			g.close()
			return nil, fmt.Errorf("gate: %w", err)
		}
		g.child = append(g.child, cr)
		// A pipe holds 64 KiB before a write blocks; the file is far smaller.
		_, err = cw.WriteString(sandboxGitconfig)
		if cerr := cw.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			g.close()
			return nil, fmt.Errorf("gate: %w", err)
		}
	}
	return g, nil
}

// close closes every end the worker still holds; an unopened gate then
// stays shut for good.
func (g *gate) close() {
	for _, f := range append(g.child, g.w) {
		f.Close()
	}
	g.child = nil
}

// open lets the command run. The shell is gone when this fails, and Wait
// says why.
func (g *gate) open() {
	_, _ = g.w.WriteString("go\n")
	g.close()
}

// started is a command started under the sandbox's limits.
type started struct {
	done <-chan error // receives Wait's result
	cg   *cgroup      // the command's cgroup, nil without
}

// start starts cmd, made by command with the gate g, puts its first
// process under the limits (its rlimits, and its own cgroup when the
// sandbox has them) and opens the gate. The caller waits on done and then
// calls release.
func (s CommandSandbox) start(cmd *exec.Cmd, g *gate) (*started, error) {
	st := &started{}
	if s.cgroups.version != 0 {
		cg, err := s.cgroups.create(s.limits)
		if err != nil {
			g.close()
			return nil, err
		}
		st.cg = cg
	}
	done, err := startLocked(cmd)
	for _, f := range g.child {
		f.Close()
	}
	g.child = nil
	if err != nil {
		g.close()
		if rerr := st.release(); rerr != nil {
			return nil, rerr
		}
		return nil, Failf("start: %v", err)
	}
	st.done = done
	if err := s.admit(cmd.Process.Pid, st.cg); err != nil {
		g.close() // the shell reads no line and exits
		_ = cmd.Cancel()
		if errors.Is(err, syscall.ESRCH) {
			// Killed before it was let in (a timeout, a
			// cancellation): nothing of the command ran, and Wait
			// says why.
			return st, nil
		}
		<-done
		return nil, errors.Join(err, st.release())
	}
	g.open()
	return st, nil
}

// admit puts the gated process pid under the limits.
func (s CommandSandbox) admit(pid int, cg *cgroup) error {
	if err := s.setRlimits(pid); err != nil {
		return err
	}
	if cg != nil {
		return cg.enter(pid)
	}
	return nil
}

// release removes the command's cgroup, killing what is left in it.
func (st *started) release() error {
	if st.cg == nil {
		return nil
	}
	return st.cg.remove()
}
