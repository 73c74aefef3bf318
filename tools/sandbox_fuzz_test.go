package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzSandbox feeds the path confinement any path a model or a person
// could write. Whatever name it resolves to must lie in the workspace, and
// reading it must never bring back a byte of what lies outside.
func FuzzSandbox(f *testing.F) {
	for _, seed := range []string{"", ".", "a.txt", "dir/b.txt", "../etc/passwd", "dir/../../x", "/etc/passwd",
		"link/secret", "out/new.txt", "dir/./../a.txt", "a\x00b", "//etc", "dir//b.txt", "loop/x", "dangling",
		"rel/secret", "abs/a.txt", "/proc/self/environ"} {
		f.Add(seed)
	}
	root := f.TempDir()
	outside := f.TempDir()
	must := func(err error) {
		if err != nil {
			f.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(root, "dir"), 0o755))
	must(os.WriteFile(filepath.Join(root, "a.txt"), []byte("a"), 0o600))
	must(os.WriteFile(filepath.Join(outside, "secret"), []byte("CANARY"), 0o600))
	must(os.Symlink(outside, filepath.Join(root, "link")))
	must(os.Symlink(filepath.Join(outside, "missing"), filepath.Join(root, "dangling")))
	must(os.Symlink("loop", filepath.Join(root, "loop")))
	must(os.Symlink(outside, filepath.Join(root, "out")))
	must(os.Symlink("../"+filepath.Base(outside), filepath.Join(root, "rel")))
	must(os.Symlink(root, filepath.Join(root, "abs")))
	sb, err := NewSandbox(root)
	must(err)

	f.Fuzz(func(t *testing.T, p string) {
		r, err := sb.open()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if name, err := sb.resolve(r, p, true); err == nil && name != "." && !filepath.IsLocal(name) {
			t.Fatalf("resolve(%q) = %q, not a name inside the workspace", p, name)
		}
		if data, err := sb.ReadFile(p, 0); err == nil && strings.Contains(string(data), "CANARY") {
			t.Fatalf("ReadFile(%q) read the file outside the workspace", p)
		}
	})
}
