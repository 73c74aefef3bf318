package tools

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzResolve feeds the path confinement any path a model or a person could
// write. Whatever it accepts must lie in the workspace once every symlink
// is followed, so no tool can be pointed outside it.
func FuzzResolve(f *testing.F) {
	for _, seed := range []string{"", ".", "a.txt", "dir/b.txt", "../etc/passwd", "dir/../../x", "/etc/passwd",
		"link/secret", "out/new.txt", "dir/./../a.txt", "a\x00b", "//etc", "dir//b.txt", "loop/x", "dangling"} {
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
	must(os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o600))
	must(os.Symlink(outside, filepath.Join(root, "link")))
	must(os.Symlink(filepath.Join(outside, "missing"), filepath.Join(root, "dangling")))
	must(os.Symlink("loop", filepath.Join(root, "loop")))
	must(os.Symlink(outside, filepath.Join(root, "out")))
	sb, err := NewSandbox(root)
	must(err)

	f.Fuzz(func(t *testing.T, p string) {
		abs, err := sb.Resolve(p)
		if err != nil {
			return
		}
		if !filepath.IsAbs(abs) || !Within(sb.Root(), abs) {
			t.Fatalf("Resolve(%q) = %q, outside the workspace %q", p, abs, sb.Root())
		}
		real := abs
		for cur := abs; ; cur = filepath.Dir(cur) {
			if r, err := filepath.EvalSymlinks(cur); err == nil {
				real = r
				break
			}
			if cur == filepath.Dir(cur) {
				break
			}
		}
		if !Within(sb.Root(), real) {
			t.Fatalf("Resolve(%q) = %q, which leads to %q outside the workspace", p, abs, real)
		}
	})
}
