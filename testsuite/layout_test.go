package testsuite

import (
	"bufio"
	"bytes"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/planmode/planmode/internal/devserver"
	"github.com/stretchr/testify/require"
)

// module is planmode's module path.
const module = "github.com/planmode/planmode"

// goPackage is one package of the module as `go list` sees it.
type goPackage struct {
	path    string // relative to the module: "plan", "llm/openai"
	command bool   // package main
	imports []string
}

// listPackages lists the module's packages with their non-test imports.
func listPackages(t *testing.T) []goPackage {
	t.Helper()
	root, err := devserver.RepoRoot()
	require.NoError(t, err)
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}} {{.Name}} {{join .Imports \" \"}}", "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	require.NoError(t, err, "go list")
	var pkgs []goPackage
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		require.GreaterOrEqual(t, len(f), 2, "go list line %q", sc.Text())
		pkgs = append(pkgs, goPackage{path: rel(f[0]), command: f[1] == "main", imports: f[2:]})
	}
	require.NoError(t, sc.Err())
	require.NotEmpty(t, pkgs)
	return pkgs
}

// rel strips the module path; packages outside the module keep their path.
func rel(importPath string) string {
	if importPath == module {
		return "."
	}
	return strings.TrimPrefix(importPath, module+"/")
}

// own reports whether importPath is a package of the module.
func own(importPath string) bool {
	return importPath == module || strings.HasPrefix(importPath, module+"/")
}

// under reports whether path is dir or below it.
func under(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, dir+"/")
}

// layer names the layer of a package of the module (docs/architecture.md).
func layer(path string) string {
	for _, l := range []string{"plan", "signals", "view", "planclient", "activities", "workflows", "worker", "starter", "scripts", "testsuite", "demo"} {
		if under(path, l) {
			return l
		}
	}
	return "subsystem"
}

// TestImportDirection keeps the layering of docs/architecture.md: imports
// point down (plan ← signals ← view, subsystems ← activities ← workflows ←
// commands, and plan ← signals ← planclient ← commands), nothing imports
// a command or the test suite, only the LLM
// tree imports go-openai, the workflow reaches the subsystems only
// through activity names and contract types, and the commands under
// starter link no part of the worker's side, even through another package
// (cliLinks).
func TestImportDirection(t *testing.T) {
	pkgs := listPackages(t)
	commands := map[string]bool{}
	for _, p := range pkgs {
		if p.command {
			commands[p.path] = true
		}
	}
	var broken []string
	bad := func(p goPackage, imp, why string) {
		broken = append(broken, p.path+" imports "+rel(imp)+": "+why)
	}
	for _, p := range pkgs {
		from := layer(p.path)
		for _, imp := range p.imports {
			if strings.HasPrefix(imp, "github.com/sashabaranov/go-openai") && !under(p.path, "llm") {
				bad(p, imp, "only the LLM tree talks to go-openai")
			}
			if !own(imp) {
				continue
			}
			to, target := layer(rel(imp)), rel(imp)
			switch {
			case commands[target]:
				bad(p, imp, "nothing imports a command")
			case to == "testsuite" || target == "internal/testkit":
				bad(p, imp, "only tests import the test suite and the test kit")
			case from == "plan":
				bad(p, imp, "plan is the pure domain and imports no other planmode package")
			case from == "signals" && to != "signals" && to != "plan":
				bad(p, imp, "signals, the wire contract, imports only plan")
			case from == "view" && to != "view" && to != "signals" && to != "plan":
				bad(p, imp, "view renders the contract's state and imports only signals and plan")
			case from == "planclient" && to != "planclient" && to != "signals" && to != "plan":
				bad(p, imp, "the client imports only the contract")
			case to == "planclient" && (from == "subsystem" || from == "activities" || from == "workflows") && !under(p.path, "mcpserver"):
				// mcpserver is the commands' MCP face: the client's
				// operations as tools, served by planmode mcp and serve.
				bad(p, imp, "only the commands use the client: the worker's side never sends to a plan through it")
			case target == "mcpserver" && from != "starter" && from != "testsuite":
				bad(p, imp, "only the commands serve the MCP tools")
			case under(p.path, "llm") && !under(p.path, "llm/phases") && under(target, "prompts"):
				// llm/phases, the rules of each phase, builds on the
				// prompts; the client and the models below them do not.
				bad(p, imp, "the prompts build on the model's client: llm and the offline model do not import them")
			case from == "subsystem" && (to == "activities" || to == "workflows" || to == "worker" || to == "starter"):
				bad(p, imp, "a subsystem does not know the Temporal face or the commands above it")
			case from == "activities" && (to == "workflows" || to == "worker" || to == "starter"):
				bad(p, imp, "activities do not know the workflow or the commands")
			case from == "workflows" && to == "subsystem" && target != "metrics":
				// metrics holds names and recorders over the SDK's
				// handler, which workflow code may use: it does no work.
				bad(p, imp, "the workflow reaches subsystems only through activity names and contract types")
			case from == "workflows" && (to == "worker" || to == "starter"):
				bad(p, imp, "the workflow does not know the commands")
			case from == "starter" && (to == "workflows" || to == "activities"):
				bad(p, imp, "the CLI drives plans through the contract, not the workflow's code")
			}
		}
	}
	broken = append(broken, cliLinks(pkgs)...)
	require.Empty(t, broken, "imports against the layering of docs/architecture.md")
}

// cliUnlinked are the packages the CLI must not reach, directly or through
// another package: it drives plans through the contract (planclient,
// signals), and linking the worker's side would put the workflow, the
// activities, the tools, the MCP servers and the offline model into the
// operator's binary.
var cliUnlinked = []string{"worker", "workflows", "activities", "tools", "mcp", "llm/offline"}

// cliLinks checks the transitive non-test imports of every package under
// starter and names, for each package of cliUnlinked reached, the chain of
// imports that reaches it.
func cliLinks(pkgs []goPackage) []string {
	imports := map[string][]string{}
	var starts []string
	for _, p := range pkgs {
		imports[p.path] = p.imports
		if under(p.path, "starter") {
			starts = append(starts, p.path)
		}
	}
	// via maps each package reached to the one that first imported it; a
	// package outside the module imports none of the module's.
	via := map[string]string{}
	queue := starts
	for _, s := range starts {
		via[s] = ""
	}
	for len(queue) > 0 {
		from := queue[0]
		queue = queue[1:]
		for _, imp := range imports[from] {
			if to := rel(imp); own(imp) && !hasKey(via, to) {
				via[to] = from
				queue = append(queue, to)
			}
		}
	}
	var broken []string
	for _, p := range pkgs {
		if !hasKey(via, p.path) || !slices.ContainsFunc(cliUnlinked, func(dir string) bool { return under(p.path, dir) }) {
			continue
		}
		chain := []string{p.path}
		for at := via[p.path]; at != ""; at = via[at] {
			chain = append([]string{at}, chain...)
		}
		broken = append(broken, strings.Join(chain, " -> ")+
			": the CLI drives plans through the contract only and links no part of the worker's side")
	}
	return broken
}

// hasKey reports whether m holds k.
func hasKey(m map[string]string, k string) bool {
	_, ok := m[k]
	return ok
}

// TestProductBuildsWithoutTestSuite checks that no product binary links
// the test suite: the offline model and every other part the worker and
// the CLI need live outside it.
func TestProductBuildsWithoutTestSuite(t *testing.T) {
	root, err := devserver.RepoRoot()
	require.NoError(t, err)
	cmd := exec.Command("go", "list", "-deps", "./worker", "./starter")
	cmd.Dir = root
	out, err := cmd.Output()
	require.NoError(t, err, "go list -deps")
	require.Contains(t, string(out), module+"/workflows", "the worker's dependencies are listed")
	for _, dep := range strings.Fields(string(out)) {
		require.False(t, own(dep) && layer(rel(dep)) == "testsuite", "the product links %s", dep)
	}
}
