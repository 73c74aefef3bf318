package tools

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// cgroups is where commands' cgroups are made: a child of the worker's own
// cgroup, in the unified (v2) hierarchy or in the pids and memory
// hierarchies of v1. The zero value has none.
type cgroups struct {
	version      int
	pids, memory string // the parents; one directory in v2
}

// detectCgroups finds a cgroup hierarchy the worker may make children in,
// with the pids and memory controllers, v2 first, and tries it once.
func detectCgroups() (cgroups, error) {
	c, err2 := detectCgroup2()
	if err2 == nil {
		return c, nil
	}
	c, err1 := detectCgroup1()
	if err1 == nil {
		return c, nil
	}
	return cgroups{}, fmt.Errorf("cgroup v2: %v; cgroup v1: %v", err2, err1)
}

// detectCgroup2 uses the worker's own v2 cgroup when it is delegated: the
// pids and memory controllers are available in it and it is writable. A
// cgroup with processes of its own cannot enable controllers for its
// children, so the worker first moves itself into a leaf of its own
// (planmode-worker), as systemd's delegation asks of a service.
func detectCgroup2() (cgroups, error) {
	dir, err := ownCgroup("cgroup2", "")
	if err != nil {
		return cgroups{}, err
	}
	if have, _ := os.ReadFile(filepath.Join(dir, "cgroup.controllers")); !hasWords(have, "pids", "memory") {
		return cgroups{}, fmt.Errorf("%s lacks the pids or memory controller", dir)
	}
	control := filepath.Join(dir, "cgroup.subtree_control")
	if on, _ := os.ReadFile(control); !hasWords(on, "pids", "memory") {
		if writeCgroupFile(control, "+pids +memory") != nil {
			leaf := filepath.Join(dir, "planmode-worker")
			if err := os.Mkdir(leaf, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
				return cgroups{}, err
			}
			if err := writeCgroupFile(filepath.Join(leaf, "cgroup.procs"), "0"); err != nil {
				return cgroups{}, err
			}
			if err := writeCgroupFile(control, "+pids +memory"); err != nil {
				return cgroups{}, err
			}
		}
	}
	c := cgroups{version: 2, pids: dir, memory: dir}
	return c, c.try()
}

// detectCgroup1 uses the worker's own cgroups in the v1 pids and memory
// hierarchies, when it may make children there.
func detectCgroup1() (cgroups, error) {
	pids, err := ownCgroup("cgroup", "pids")
	if err != nil {
		return cgroups{}, err
	}
	memory, err := ownCgroup("cgroup", "memory")
	if err != nil {
		return cgroups{}, err
	}
	c := cgroups{version: 1, pids: pids, memory: memory}
	return c, c.try()
}

// try makes a cgroup with limits, moves a gated process into it as a
// command's is, and removes it, first removing what workers that died
// left.
func (c cgroups) try() error {
	c.sweep()
	g, err := c.create(Limits{}.withDefaults())
	if err != nil {
		return err
	}
	gt, err := newGate(false)
	if err != nil {
		return errors.Join(err, g.remove())
	}
	cmd := exec.Command(gateShell, "-c", gateScript, "planmode-gate", gateShell, "-c", ":")
	cmd.ExtraFiles = gt.child
	if err = cmd.Start(); err == nil {
		if err = g.enter(cmd.Process.Pid); err == nil {
			gt.open()
		}
		gt.close()
		err = errors.Join(err, cmd.Wait())
	}
	gt.close()
	return errors.Join(err, g.remove())
}

// ownCgroup returns the directory of the worker's own cgroup in the
// hierarchy of type fstype (with the v1 controller ctrl).
func ownCgroup(fstype, ctrl string) (string, error) {
	own, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", err
	}
	path, found := "", false
	for line := range strings.Lines(string(own)) {
		f := strings.SplitN(strings.TrimSpace(line), ":", 3)
		if len(f) == 3 && ((ctrl == "" && f[0] == "0" && f[1] == "") ||
			(ctrl != "" && slices.Contains(strings.Split(f[1], ","), ctrl))) {
			path, found = f[2], true
			break
		}
	}
	if !found {
		return "", fmt.Errorf("the worker is in no %s %s hierarchy", fstype, ctrl)
	}
	mounts, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return "", err
	}
	for line := range strings.Lines(string(mounts)) {
		pre, post, ok := strings.Cut(line, " - ")
		f, g := strings.Fields(pre), strings.Fields(post)
		if !ok || len(f) < 5 || len(g) < 3 || g[0] != fstype ||
			(ctrl != "" && !slices.Contains(strings.Split(g[2], ","), ctrl)) {
			continue
		}
		root, at := f[3], f[4]
		if rel, ok := strings.CutPrefix(path, root); ok && (root == "/" || rel == "" || rel[0] == '/') {
			dir := filepath.Join(at, rel)
			if syscall.Access(dir, 2) != nil { // W_OK
				return "", fmt.Errorf("%s is not writable", dir)
			}
			return dir, nil
		}
	}
	return "", fmt.Errorf("no %s %s hierarchy holding %s is mounted", fstype, ctrl, path)
}

// hasWords reports whether the space-separated words of b include all of want.
func hasWords(b []byte, want ...string) bool {
	have := strings.Fields(string(b))
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

// cgroupSeq numbers the cgroups of this worker process.
var cgroupSeq atomic.Uint64

// cgroupPrefix starts the name of every cgroup of a command of this
// worker process: planmode-<pid>-<n>.
func cgroupPrefix(pid int) string { return "planmode-" + strconv.Itoa(pid) + "-" }

// cgroup is one command's cgroup: one directory in v2, one in each of the
// pids and memory hierarchies in v1.
type cgroup struct {
	version      int
	pids, memory string
}

// create makes a cgroup for one command, holding it to l's processes
// and memory, with no swap beyond it.
func (c cgroups) create(l Limits) (*cgroup, error) {
	name := cgroupPrefix(os.Getpid()) + strconv.FormatUint(cgroupSeq.Add(1), 10)
	g := &cgroup{version: c.version, pids: filepath.Join(c.pids, name), memory: filepath.Join(c.memory, name)}
	for _, d := range g.dirs() {
		if err := os.Mkdir(d, 0o755); err != nil {
			g.remove()
			return nil, fmt.Errorf("make cgroup: %w", err)
		}
	}
	procs, mem := strconv.Itoa(l.Processes), strconv.FormatInt(l.MemoryBytes, 10)
	// Swap counts towards the limit: none beyond it. Without swap
	// accounting (v1 booted without swapaccount) the file is missing.
	settings := []struct {
		dir, file, value string
		optional         bool
	}{{g.pids, "pids.max", procs, false}, {g.memory, "memory.max", mem, false}, {g.memory, "memory.swap.max", "0", true}}
	if c.version == 1 {
		settings[1].file = "memory.limit_in_bytes"
		settings[2].file, settings[2].value = "memory.memsw.limit_in_bytes", mem
	}
	for _, s := range settings {
		err := writeCgroupFile(filepath.Join(s.dir, s.file), s.value)
		if err != nil && !(s.optional && errors.Is(err, os.ErrNotExist)) {
			g.remove()
			return nil, fmt.Errorf("set %s: %w", s.file, err)
		}
	}
	return g, nil
}

// dirs returns the cgroup's directories.
func (g *cgroup) dirs() []string {
	if g.pids == g.memory {
		return []string{g.pids}
	}
	return []string{g.pids, g.memory}
}

// enter moves the process pid into the cgroup.
func (g *cgroup) enter(pid int) error {
	for _, d := range g.dirs() {
		if err := writeCgroupFile(filepath.Join(d, "cgroup.procs"), strconv.Itoa(pid)); err != nil {
			return fmt.Errorf("enter cgroup %s: %w", d, err)
		}
	}
	return nil
}

// breach returns the limit the cgroup's processes passed, if any: a fork
// refused at the process limit, or a process killed at the memory limit.
func (g *cgroup) breach(l Limits) *limitBreach {
	if eventCount(filepath.Join(g.pids, "pids.events"), "max") > 0 {
		return processBreach(l)
	}
	events := filepath.Join(g.memory, "memory.events")
	if g.version == 1 {
		events = filepath.Join(g.memory, "memory.oom_control")
	}
	if eventCount(events, "oom_kill") > 0 {
		return memoryBreach(l, false)
	}
	return nil
}

// kill kills every process in the cgroup.
func (g *cgroup) kill() {
	if g.version == 2 && writeCgroupFile(filepath.Join(g.pids, "cgroup.kill"), "1") == nil {
		return
	}
	for _, d := range g.dirs() {
		procs, _ := os.ReadFile(filepath.Join(d, "cgroup.procs"))
		for _, p := range strings.Fields(string(procs)) {
			if pid, err := strconv.Atoi(p); err == nil {
				_ = syscall.Kill(pid, syscall.SIGKILL) // gone already is fine
			}
		}
	}
}

// removeWait bounds the wait for a killed cgroup's processes to go.
const removeWait = 10 * time.Second

// remove kills what is left in the cgroup and removes it, waiting for its
// processes to be gone.
func (g *cgroup) remove() error {
	deadline := time.Now().Add(removeWait)
	for {
		g.kill()
		var err error
		for _, d := range g.dirs() {
			if e := syscall.Rmdir(d); e != nil && !errors.Is(e, syscall.ENOENT) {
				err = fmt.Errorf("remove cgroup %s: %w", d, e)
			}
		}
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(10 * time.Millisecond) // its last processes are exiting
	}
}

// sweep removes the cgroups of commands of worker processes that are gone
// (a worker killed while a command ran leaves its cgroup behind).
func (c cgroups) sweep() {
	for _, parent := range (&cgroup{pids: c.pids, memory: c.memory}).dirs() {
		left, _ := filepath.Glob(filepath.Join(parent, "planmode-*-*"))
		for _, d := range left {
			pid, err := strconv.Atoi(strings.Split(filepath.Base(d), "-")[1])
			if err != nil || pid == os.Getpid() {
				continue
			}
			if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); errors.Is(err, os.ErrNotExist) {
				_ = syscall.Rmdir(d) // in use or gone: left as it is
			}
		}
	}
}

// eventCount returns the count named key in a cgroup file of "key value"
// lines; 0 when there is none.
func eventCount(file, key string) int64 {
	data, err := os.ReadFile(file)
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), " "); ok && k == key {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}

// writeFile writes s to the cgroup file name, which exists.
func writeCgroupFile(name, s string) error {
	f, err := os.OpenFile(name, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(s)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
