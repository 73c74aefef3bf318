package tools

import (
	"os"
	"path/filepath"
	"strconv"
)

// systemDirs are the host directories every sandbox shows, read-only:
// programs and their libraries. Nothing else of the host's tree is shown
// unless the operator adds it (tools.readOnlyPaths): /home, /root, /srv,
// /var, /opt and /run hold the worker's configuration, outputs and
// snapshots, other users' files and service sockets.
var systemDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}

// etcEntries are the parts of /etc a sandbox shows: users and groups (for
// tools that look up their own name), name resolution and certificates
// (for tools.network), the dynamic linker's cache, time zones, and
// Debian's alternatives (/usr/bin/awk leads through /etc/alternatives).
// The rest of /etc stays out, for it may hold secrets: shadow,
// ssl/private, a planmode configuration, credentials of services, and
// gitconfig, whose credential helpers reach the host's secrets: the
// sandbox has sandboxGitconfig in its place.
var etcEntries = []string{
	"alternatives", "ca-certificates", "ca-certificates.conf", "ssl/certs", "ssl/openssl.cnf", "pki/tls/certs",
	"passwd", "group", "nsswitch.conf", "hosts", "host.conf", "resolv.conf", "gai.conf", "services", "protocols",
	"ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "timezone", "mime.types", "os-release",
	"debian_version",
}

// systemMounts returns bubblewrap's arguments that show the system
// directories and /etc entries present here, and the directories they
// show. A top-level directory that is a symlink (/bin -> usr/bin on a
// merged /usr) is recreated as the same symlink.
func systemMounts() (args, visible []string) {
	for _, dir := range systemDirs {
		fi, err := os.Lstat(dir)
		switch {
		case err != nil:
			continue
		case fi.Mode()&os.ModeSymlink != 0:
			if target, err := os.Readlink(dir); err == nil {
				args = append(args, "--symlink", target, dir)
			}
		case fi.IsDir():
			args = append(args, "--ro-bind", dir, dir)
			visible = append(visible, dir)
		}
	}
	for _, name := range etcEntries {
		p := filepath.Join("/etc", name)
		if _, err := os.Stat(p); err == nil {
			args = append(args, "--ro-bind", p, p)
		}
	}
	return args, visible
}

// bwrapArgs returns bubblewrap's arguments, up to and with "--", that run
// a command in the workspace root. The order matters: bubblewrap applies
// them in turn, so the workspace is bound after /tmp's tmpfs (a workspace
// under /tmp shows) and after the read-only paths (a workspace under one
// stays writable), and the sandbox's own root is made read-only last,
// once every mount point in it exists.
func (s CommandSandbox) bwrapArgs(root string) []string {
	// --unshare-all: own user (when possible), PID, mount, network, IPC,
	// UTS and cgroup namespaces.
	args := []string{"--unshare-all"}
	if s.noUserns {
		// The worker's own user id and group inside, as without a user
		// namespace of ours around bubblewrap (where it runs as root).
		args = append(args, "--unshare-user", "--disable-userns",
			"--uid", strconv.Itoa(os.Getuid()), "--gid", strconv.Itoa(os.Getgid()))
	}
	if s.network {
		args = append(args, "--share-net")
	}
	args = append(args,
		// The sandbox dies when the worker does, and with the PID
		// namespace's init every process in it.
		"--die-with-parent",
		// No controlling terminal to push input into (TIOCSTI).
		"--new-session",
		// No capabilities, even for a worker that runs as root.
		"--cap-drop", "ALL")
	args = append(args, s.mounts...)
	args = append(args, "--proc", "/proc", "--dev", "/dev")
	if s.tmpSize {
		// /tmp is held in memory: bounded, a write past its size fails
		// with ENOSPC inside the command.
		args = append(args, "--size", strconv.FormatInt(s.limits.TmpBytes, 10))
	}
	args = append(args, "--tmpfs", "/tmp", "--file", strconv.Itoa(gitconfigFD), "/etc/gitconfig")
	for _, p := range s.readOnly {
		args = append(args, "--ro-bind", p, p)
	}
	return append(args, "--bind", root, root, "--chdir", root, "--remount-ro", "/", "--")
}

// sees reports whether the sandbox shows the host directory dir.
func (s CommandSandbox) sees(dir string) bool {
	if s.mode == SandboxNone {
		return true
	}
	for _, v := range s.visible {
		if Within(v, dir) {
			return true
		}
	}
	return false
}

// sandboxGitconfig is the sandbox's /etc/gitconfig, in place of the
// host's: an author for commits in the workspace, and nothing that leads
// to credentials.
const sandboxGitconfig = "# planmode: the command sandbox's git configuration; the host's is not shown.\n" +
	"[user]\n\tname = planmode\n\temail = planmode@localhost\n"
