package tools

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
)

// setParentDeathSignal makes the kernel SIGKILL the process when the
// thread that started it ends (see startLocked).
func setParentDeathSignal(attr *syscall.SysProcAttr) {
	attr.Pdeathsig = syscall.SIGKILL
}

// ownPIDNamespace makes the process cmd starts (after isolate) the init of a new PID
// namespace, inside a new user namespace where the worker's user is root
// (which needs no privilege). When an init dies, however it dies, the
// kernel kills every process of its namespace, nested namespaces
// included. bubblewrap started so takes the whole sandbox with it when the
// worker dies or cancels: its own --die-with-parent leaves a gap, since the
// sandbox's init asks for its parent-death signal a moment after it
// starts, and a parent that died in that moment leaves it running.
func ownPIDNamespace(cmd *exec.Cmd) {
	attr := cmd.SysProcAttr
	attr.Cloneflags |= syscall.CLONE_NEWUSER | syscall.CLONE_NEWPID
	attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}}
	attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}}
	attr.GidMappingsEnableSetgroups = false
}

// countTasks returns how many tasks (processes and their threads, zombies
// included, as a cgroup's pids.max counts them) the tree of processes
// under pid holds, pid included, as /proc shows them now.
func countTasks(pid int) int {
	entries, _ := os.ReadDir("/proc")
	children := map[int][]int{}
	threads := map[int]int{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // gone meanwhile
		}
		// The name, in parentheses, may hold anything; the fields
		// after it are state, ppid, … and num_threads 18th.
		f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(f) < 18 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		n, _ := strconv.Atoi(f[17])
		children[ppid] = append(children[ppid], p)
		threads[p] = max(n, 1)
	}
	total := 0
	for todo := []int{pid}; len(todo) > 0; {
		p := todo[len(todo)-1]
		todo = append(todo[:len(todo)-1], children[p]...)
		total += threads[p]
	}
	return total
}
