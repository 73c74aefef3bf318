package tools

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCommandEnvIsDeclaredNotInherited(t *testing.T) {
	root := t.TempDir()
	worker := map[string]string{
		"PATH":                root + "/bin:relative/bin:/usr/bin:/bin:/nonexistent/bin:/usr/bin",
		"LANG":                "C.UTF-8",
		"GOFLAGS":             "-mod=mod",
		"PLANMODE_LLM_APIKEY": "sk-secret",
		"DATABASE_URL":        "postgres://app:secret@db/app",
	}
	lookup := func(name string) (string, bool) { v, ok := worker[name]; return v, ok }
	bwrap := CommandSandbox{mode: SandboxBwrap, visible: []string{"/usr"}}
	none := CommandSandbox{mode: SandboxNone}

	tests := []struct {
		name string
		sbx  CommandSandbox
		env  []string
		want []string
	}{
		{name: "nothing declared", sbx: bwrap, want: []string{
			"PATH=/usr/bin:/bin", "HOME=" + root, "LANG=C.UTF-8", "XDG_CACHE_HOME=/tmp/.cache", "XDG_CONFIG_HOME=/tmp/.config"}},
		{name: "declared values and passed-on names", sbx: bwrap,
			env: []string{"CGO_ENABLED=0", "GOFLAGS", "MISSING", "HOME=/tmp/home", "EMPTY="},
			want: []string{"PATH=/usr/bin:/bin", "HOME=/tmp/home", "LANG=C.UTF-8", "XDG_CACHE_HOME=/tmp/.cache", "XDG_CONFIG_HOME=/tmp/.config",
				"CGO_ENABLED=0", "GOFLAGS=-mod=mod", "EMPTY="}},
		{name: "the operator may pass a secret on by name", sbx: bwrap, env: []string{"DATABASE_URL"},
			want: []string{"PATH=/usr/bin:/bin", "HOME=" + root, "LANG=C.UTF-8", "XDG_CACHE_HOME=/tmp/.cache", "XDG_CONFIG_HOME=/tmp/.config",
				"DATABASE_URL=postgres://app:secret@db/app"}},
		{name: "unsandboxed: the shared /tmp holds no cache", sbx: none, want: []string{
			"PATH=/usr/bin:/bin", "HOME=" + root, "LANG=C.UTF-8"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.sbx.env(Config{Env: tt.env}, root, lookup)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestSafePathKeepsOnlyDirectoriesTheSandboxShows(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(root, "bin"), 0o755))
	s := CommandSandbox{mode: SandboxBwrap, visible: []string{"/usr"}}
	assert.Equal(t, "/usr/bin", s.safePath(root+"/bin:.:bin:/usr/bin:/root/go/bin", root),
		"workspace, relative and unseen directories go")
	assert.Equal(t, defaultPath, s.safePath("", root))
	none := CommandSandbox{mode: SandboxNone}
	assert.Equal(t, "/usr/bin", none.safePath(root+"/bin:.:/usr/bin", root), "unsandboxed too")
}

func TestBwrapArgsIsolateAndOrderTheMounts(t *testing.T) {
	root := "/tmp/ws"
	s := CommandSandbox{mode: SandboxBwrap, noUserns: true, mounts: []string{"--ro-bind", "/usr", "/usr"},
		readOnly: []string{"/opt/go-mods"}}
	args := s.bwrapArgs(root)
	for _, want := range [][]string{
		{"--unshare-all"}, {"--unshare-user", "--disable-userns"}, {"--die-with-parent"}, {"--new-session"},
		{"--cap-drop", "ALL"}, {"--proc", "/proc"}, {"--dev", "/dev"}, {"--tmpfs", "/tmp"},
		{"--ro-bind", "/opt/go-mods", "/opt/go-mods"}, {"--bind", root, root}, {"--chdir", root},
	} {
		assert.GreaterOrEqual(t, indexOf(args, want), 0, "missing %v in %v", want, args)
	}
	assert.Less(t, indexOf(args, []string{"--tmpfs", "/tmp"}), indexOf(args, []string{"--bind", root, root}),
		"a workspace under /tmp is bound over the private /tmp")
	assert.Less(t, indexOf(args, []string{"--ro-bind", "/opt/go-mods"}), indexOf(args, []string{"--bind", root}),
		"a workspace under a read-only path stays writable")
	assert.Equal(t, []string{"--remount-ro", "/", "--"}, args[len(args)-3:])
	assert.NotContains(t, args, "--share-net")

	s.network = true
	assert.Contains(t, s.bwrapArgs(root), "--share-net")
}

// indexOf returns where seq starts in args, or -1.
func indexOf(args, seq []string) int {
	for i := range args {
		if i+len(seq) <= len(args) && slices.Equal(args[i:i+len(seq)], seq) {
			return i
		}
	}
	return -1
}

func TestSystemMountsLeaveSecretsOut(t *testing.T) {
	args, visible := systemMounts()
	joined := strings.Join(args, " ")
	for _, hidden := range []string{"/etc/shadow", "/etc/ssl/private", "/root", "/home", "/var", "/srv", "/run", "/opt"} {
		for _, a := range args {
			assert.False(t, a == hidden || strings.HasPrefix(a, hidden+"/"), "%s is shown: %s", hidden, joined)
		}
	}
	assert.NotContains(t, args, "/etc", "only chosen entries of /etc")
	if fi, err := os.Stat("/usr"); err == nil && fi.IsDir() {
		assert.Contains(t, visible, "/usr")
	}
}

func TestDetectCommandSandboxChecksTheSettings(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{name: "unknown mode", cfg: Config{Sandbox: "docker"}, want: `tools.sandbox "docker": want auto, bwrap or none`},
		{name: "bad env entry", cfg: Config{Env: []string{"=x"}}, want: `tools.env "=x"`},
		{name: "relative read-only path", cfg: Config{ReadOnlyPaths: []string{"opt"}}, want: "want an absolute path"},
		{name: "the root as read-only path", cfg: Config{ReadOnlyPaths: []string{"/"}}, want: "other than /"},
		{name: "missing read-only path", cfg: Config{ReadOnlyPaths: []string{"/no/such/dir"}}, want: "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DetectCommandSandbox(tt.cfg)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestDetectCommandSandboxNone(t *testing.T) {
	s, err := DetectCommandSandbox(Config{Sandbox: SandboxNone})
	require.NoError(t, err)
	assert.Equal(t, SandboxNone, s.Mode())
	assert.False(t, s.Isolated())
	assert.Contains(t, s.String(), "NOT isolated")
}

func TestDetectCommandSandboxFindsBubblewrap(t *testing.T) {
	requireCommandSandbox(t)
	s, err := DetectCommandSandbox(DefaultConfig())
	require.NoError(t, err)
	assert.Equal(t, SandboxBwrap, s.Mode())
	assert.True(t, s.Isolated())
	assert.Contains(t, s.String(), "no network")
}

func TestCommandsAreRefusedWithoutASandbox(t *testing.T) {
	broken := filepath.Join(t.TempDir(), "bwrap")
	require.NoError(t, os.WriteFile(broken,
		[]byte("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n"), 0o755))
	tests := []struct {
		name, bwrap, want string
	}{
		{name: "bubblewrap missing", bwrap: filepath.Join(t.TempDir(), "missing"), want: "no such file"},
		{name: "bubblewrap cannot start", bwrap: broken, want: "No permissions to create new namespace"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := cmdConfig()
			cfg.Sandbox, cfg.bwrap = SandboxAuto, tt.bwrap
			cfg.TestCommand = []string{"true"}
			_, err := DetectCommandSandbox(cfg)
			require.ErrorIs(t, err, ErrNoSandbox)
			assert.Contains(t, err.Error(), tt.want)
			assert.Contains(t, err.Error(), "apt-get install bubblewrap", "the error names the fix")

			sb := newWorkspace(t, nil)
			for _, tool := range []struct{ name, args string }{
				{"run_command", `{"command":"true"}`}, {"run_tests", `{}`},
			} {
				res, err := call(t, Builtin(cfg), sb, tool.name, tool.args)
				require.ErrorIs(t, err, ErrNoSandbox, tool.name)
				assert.False(t, IsToolError(err), "a setup fault of the worker, not the agent's")
				assert.Zero(t, res.CommandsRun, "nothing ran")
			}
		})
	}
}

func TestZeroCommandSandboxRunsNothing(t *testing.T) {
	var s CommandSandbox
	_, _, err := s.command(t.Context(), t.TempDir(), []string{"PATH=/usr/bin:/bin"}, "true", nil)
	require.Error(t, err)
	assert.Contains(t, s.String(), "refused")
	assert.False(t, IsToolError(err), "a fault of the worker, not the agent's")
}
