package testsuite

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/internal/devserver"
)

// Receiver bounds: a type whose methods pass them has taken on more than
// one job. The workflow's parts, the activities and the plan are held
// to the lower one.
const (
	maxMethodsCore = 40
	maxMethods     = 45
)

// coreDirs are the packages held to maxMethodsCore.
var coreDirs = []string{"workflows", "activities", "plan"}

// TestNoReceiverTakesOnTooMuch: no type of the product code has more
// than maxMethods methods, none in coreDirs more than maxMethodsCore
// (tests, scripts and third_party aside).
func TestNoReceiverTakesOnTooMuch(t *testing.T) {
	root, err := devserver.RepoRoot()
	require.NoError(t, err)
	counts := map[string]int{}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".cache", ".git", "third_party", "testsuite", "scripts", "testdata", "node_modules":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		dir, _ := filepath.Rel(root, filepath.Dir(p))
		for _, decl := range f.Decls {
			if name, ok := receiverName(decl); ok {
				counts[filepath.ToSlash(dir)+"."+name]++
			}
		}
		return nil
	})
	require.NoError(t, err)
	require.NotEmpty(t, counts)
	for typ, n := range counts {
		limit := maxMethods
		for _, core := range coreDirs {
			if strings.HasPrefix(typ, core+".") {
				limit = maxMethodsCore
			}
		}
		assert.LessOrEqual(t, n, limit, "%s has %d methods", typ, n)
	}
}

// receiverName is the type decl is a method of.
func receiverName(decl ast.Decl) (string, bool) {
	fd, ok := decl.(*ast.FuncDecl)
	if !ok || fd.Recv == nil || len(fd.Recv.List) == 0 {
		return "", false
	}
	t := fd.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	switch x := t.(type) {
	case *ast.IndexExpr:
		t = x.X
	case *ast.IndexListExpr:
		t = x.X
	}
	id, ok := t.(*ast.Ident)
	if !ok {
		return "", false
	}
	return id.Name, true
}
