package signals_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/signals"
)

// errorTypes is every application error type of the wire contract: the
// Go constant's name, its value and whether it is a refusal of an input.
// The values are what other programs match on; the README and docs name
// each of them.
var errorTypes = []struct {
	name, value, want string
	rejection         bool
}{
	{"ErrorTypePlanFailed", signals.ErrorTypePlanFailed, "PlanFailed", false},
	{"ErrorTypeInvalidRequest", signals.ErrorTypeInvalidRequest, "InvalidRequest", false},
	{"ErrorTypeWorkspaceChanged", signals.ErrorTypeWorkspaceChanged, "WorkspaceChanged", false},
	{"ErrorTypeWorkspaceBusy", signals.ErrorTypeWorkspaceBusy, "WorkspaceBusy", false},
	{"ErrorTypeUnknownOption", signals.ErrorTypeUnknownOption, "UnknownOption", true},
	{"ErrorTypeWrongPhase", signals.ErrorTypeWrongPhase, "WrongPhase", true},
	{"ErrorTypeInvalidEdit", signals.ErrorTypeInvalidEdit, "InvalidEdit", true},
	{"ErrorTypeInvalidInput", signals.ErrorTypeInvalidInput, "InvalidInput", true},
	{"ErrorTypeUnknownRequest", signals.ErrorTypeUnknownRequest, "UnknownRequest", true},
	{"ErrorTypeTooLarge", signals.ErrorTypeTooLarge, "TooLarge", true},
	{"ErrorTypeBusy", signals.ErrorTypeBusy, "Busy", true},
	{"ErrorTypeStaleApproval", signals.ErrorTypeStaleApproval, "StaleApproval", true},
}

// TestErrorTypesAreTheDocumentedOnes keeps the error types of the contract
// in step with the docs: the values are the documented strings, byte for
// byte, the package declares no error type the table above misses, and
// RejectionTypes lists exactly the refusals.
func TestErrorTypesAreTheDocumentedOnes(t *testing.T) {
	declared := errorTypeConsts(t, ".")
	var names, rejections []string
	docs := readDocs(t)
	for _, et := range errorTypes {
		names = append(names, et.name)
		assert.Equal(t, et.want, et.value, "%s is wire contract: its value never changes", et.name)
		assert.Equal(t, et.want, declared[et.name], "%s is declared in signals", et.name)
		assert.Contains(t, docs, "`"+et.want+"`", "the docs name %s", et.want)
		if et.rejection {
			rejections = append(rejections, et.value)
		}
	}
	for name := range declared {
		assert.Contains(t, names, name, "a new error type goes in this test and the docs")
	}
	assert.ElementsMatch(t, rejections, signals.RejectionTypes)
	readme, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	list := regexp.MustCompile("(?s)Rejected inputs come back as.*?typed\n?(.*?)\\.").FindSubmatch(readme)
	require.NotNil(t, list, "the README lists the rejection types")
	for _, r := range rejections {
		assert.Contains(t, string(list[1]), "`"+r+"`", "the README's list of rejection types names %s", r)
	}
}

// TestErrorTypeConstantsFollowOneScheme checks every package of the module:
// a constant that holds an application error type is named ErrorTypeX.
// Err is for sentinel errors (var ErrX = errors.New(...)), never for a
// type string, and Reject... is not a second scheme.
func TestErrorTypeConstantsFollowOneScheme(t *testing.T) {
	var wrong []string
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != ".." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		for name := range stringConsts(t, path) {
			if regexp.MustCompile(`^(Err|Reject)[A-Z]`).MatchString(name) {
				wrong = append(wrong, path+": "+name)
			}
		}
		return nil
	})
	require.NoError(t, err)
	assert.Empty(t, wrong, "string constants named like sentinel errors or rejections: call them ErrorTypeX")
}

// errorTypeConsts returns the ErrorType* string constants declared in the
// non-test files of dir, by name.
func errorTypeConsts(t *testing.T, dir string) map[string]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	require.NoError(t, err)
	out := map[string]string{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		for name, v := range stringConsts(t, f) {
			if strings.HasPrefix(name, "ErrorType") {
				out[name] = v
			}
		}
	}
	return out
}

// stringConsts returns the constants of file whose value is a string
// literal, by name.
func stringConsts(t *testing.T, file string) map[string]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
	require.NoError(t, err)
	out := map[string]string{}
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, name := range vs.Names {
				if i >= len(vs.Values) {
					continue
				}
				if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
					out[name.Name], _ = strconv.Unquote(lit.Value)
				}
			}
		}
	}
	return out
}

// readDocs returns the README and every page of docs/, joined.
func readDocs(t *testing.T) string {
	t.Helper()
	pages, err := filepath.Glob("../docs/*.md")
	require.NoError(t, err)
	var b strings.Builder
	for _, p := range slices.Concat([]string{"../README.md"}, pages) {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		b.Write(data)
	}
	return b.String()
}
