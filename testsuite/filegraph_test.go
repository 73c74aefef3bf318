package testsuite

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/internal/devserver"
)

// fileGraph is the graph "file A uses a name defined in file B" over the
// non-test files of one package.
type fileGraph struct {
	edges map[string]map[string]bool
}

// loadFileGraph type-checks the package in dir (relative to the module),
// the files this platform builds, against the export data of its
// dependencies and returns its file graph.
func loadFileGraph(t *testing.T, dir string) fileGraph {
	t.Helper()
	root, err := devserver.RepoRoot()
	require.NoError(t, err)
	cmd := exec.Command("go", "list", "-export", "-deps", "-f", "{{.ImportPath}}\t{{.Export}}", "./"+dir)
	cmd.Dir = root
	out, err := cmd.Output()
	require.NoError(t, err, "go list -export ./%s", dir)
	exports := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		path, file, _ := strings.Cut(sc.Text(), "\t")
		exports[path] = file
	}
	fset := token.NewFileSet()
	lookup := func(path string) (io.ReadCloser, error) {
		f, ok := exports[path]
		if !ok || f == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(f)
	}
	names, err := filepath.Glob(filepath.Join(root, dir, "*.go"))
	require.NoError(t, err)
	var files []*ast.File
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") {
			continue
		}
		// Only the files this platform builds: a file and its
		// counterpart for other platforms declare the same names.
		if ok, err := build.Default.MatchFile(filepath.Dir(n), filepath.Base(n)); err != nil || !ok {
			require.NoError(t, err)
			continue
		}
		f, err := parser.ParseFile(fset, n, nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		files = append(files, f)
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: importer.ForCompiler(fset, "gc", lookup)}
	pkg, err := conf.Check(dir, fset, files, info)
	require.NoError(t, err, "type-check %s", dir)
	g := fileGraph{edges: map[string]map[string]bool{}}
	for id, obj := range info.Uses {
		if obj.Pkg() != pkg || !obj.Pos().IsValid() || obj.Parent() != pkg.Scope() && !isMember(obj) {
			continue // another package's, a local name or a struct's field
		}
		from, to := filepath.Base(fset.Position(id.Pos()).Filename), filepath.Base(fset.Position(obj.Pos()).Filename)
		if from == to {
			continue
		}
		if g.edges[from] == nil {
			g.edges[from] = map[string]bool{}
		}
		g.edges[from][to] = true
	}
	return g
}

// isMember reports whether obj is a method, whose scope is not the
// package's but which a file defines for all of them. A struct's fields
// count as their struct's: a use of one is a use of the struct's file
// already.
func isMember(obj types.Object) bool {
	f, ok := obj.(*types.Func)
	return ok && f.Type().(*types.Signature).Recv() != nil
}

// backEdges walks the files depth first, in name order, and returns the
// edges that point back to a file the walk is still inside of, A → B
// where B uses A through the path the walk took, sorted, and the number
// of edges. They are the edges to turn round for the files to read as
// layers, each using only the files below it.
func (g fileGraph) backEdges() ([]string, int) {
	var files []string
	for f := range g.edges {
		files = append(files, f)
	}
	sort.Strings(files)
	const inside, done = 1, 2
	state := map[string]int{}
	var back []string
	total := 0
	var visit func(string)
	visit = func(from string) {
		state[from] = inside
		var tos []string
		for to := range g.edges[from] {
			tos = append(tos, to)
		}
		sort.Strings(tos)
		for _, to := range tos {
			total++
			switch state[to] {
			case 0:
				visit(to)
			case inside:
				back = append(back, from+" -> "+to)
			}
		}
		state[from] = done
	}
	for _, f := range files {
		if state[f] == 0 {
			visit(f)
		}
	}
	sort.Strings(back)
	return back, total
}

// TestWorkflowFilesReadAsLayers keeps the files of the workflow package
// readable as layers: of the edges "file A uses a name defined in file
// B", at most 15 % point back to a file that uses A, directly or through
// others, on the way a depth-first walk takes (backEdges). The house's
// other large packages are logged beside it.
func TestWorkflowFilesReadAsLayers(t *testing.T) {
	for _, dir := range []string{"workflows", "plan", "workspace", "activities"} {
		back, total := loadFileGraph(t, dir).backEdges()
		share := float64(len(back)) / float64(max(total, 1))
		t.Logf("%s: %d of %d file-to-file edges point back (%.0f %%)", dir, len(back), total, 100*share)
		if dir == "workflows" {
			require.LessOrEqual(t, share, 0.15, "edges that point back in workflows/:\n%s", strings.Join(back, "\n"))
		}
	}
}
