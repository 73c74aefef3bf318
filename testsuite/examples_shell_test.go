package testsuite

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/planmode/planmode/internal/devserver"
	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// example is one line of documentation that runs planmode.
type example struct {
	source string // where it is written: "planmode edit --help", "README.md"
	line   string
}

// docFile is a file an example needs, as the documentation spells it out
// in a "# name.yaml (…):" comment block.
type docFile struct{ name, content string }

// fileHeader opens a comment block that spells out a file:
// "# edits.yaml:" or "# edits.yaml (what it holds):".
var fileHeader = regexp.MustCompile(`^#\s+(\S+\.(?:json|ya?ml))(?:\s+\(.*\))?:$`)

// readExamples returns the lines of text that run planmode (continued
// lines joined) and the files its comment blocks spell out.
func readExamples(source, text string) ([]example, []docFile) {
	var examples []example
	var files []docFile
	var open *docFile
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSpace(lines[i])
		for strings.HasSuffix(line, `\`) && i+1 < len(lines) {
			i++
			line = strings.TrimSuffix(line, `\`) + " " + strings.TrimSpace(lines[i])
		}
		if open != nil && strings.HasPrefix(line, "# ") {
			open.content += strings.TrimPrefix(line, "# ") + "\n"
			continue
		}
		if open != nil {
			files, open = append(files, *open), nil
		}
		switch m := fileHeader.FindStringSubmatch(line); {
		case m != nil:
			open = &docFile{name: m[1]}
		case strings.HasPrefix(line, "planmode "):
			examples = append(examples, example{source: source, line: line})
		}
	}
	if open != nil {
		files = append(files, *open)
	}
	return examples, files
}

// helpExamples walks the command tree and reads every command's Example.
func helpExamples(root *cobra.Command) ([]example, []docFile) {
	var examples []example
	var files []docFile
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		ex, fs := readExamples(c.CommandPath()+" --help", c.Example)
		examples, files = append(examples, ex...), append(files, fs...)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	return examples, files
}

// shellBlock finds the bodies of ```sh blocks in markdown.
var shellBlock = regexp.MustCompile("(?s)```(?:sh|bash|shell)\n(.*?)```")

// docExamples reads the planmode lines of the shell blocks of a markdown
// file of the repository.
func docExamples(t *testing.T, rel string) []example {
	t.Helper()
	root, err := devserver.RepoRoot()
	require.NoError(t, err)
	doc, err := os.ReadFile(filepath.Join(root, rel))
	require.NoError(t, err)
	var examples []example
	for _, m := range shellBlock.FindAllStringSubmatch(string(doc), -1) {
		ex, _ := readExamples(rel, m[1])
		examples = append(examples, ex...)
	}
	return examples
}

// shellCommand is one command of an example line, as sh would run it.
type shellCommand struct {
	words []string
	// stdout is the file its output is redirected to ("> plan.mmd").
	stdout string
	// pipe is the command its output is piped into ("| dot -Tsvg").
	pipe []string
}

// parseShell splits a line of sh into its commands at ";" and "&&",
// honouring single and double quotes and backslashes and dropping a "#"
// comment. It knows "|" and ">" for the last stage of a command, which is
// all the examples use, and refuses what it does not know rather than
// guess.
func parseShell(line string) ([]shellCommand, error) {
	var cmds []shellCommand
	cur := &shellCommand{}
	var word strings.Builder
	inWord, target := false, "words"
	flush := func() {
		if !inWord {
			return
		}
		switch target {
		case "stdout":
			cur.stdout, target = word.String(), "words"
		case "pipe":
			cur.pipe = append(cur.pipe, word.String())
		default:
			cur.words = append(cur.words, word.String())
		}
		word.Reset()
		inWord = false
	}
	end := func() {
		flush()
		if len(cur.words) > 0 {
			cmds = append(cmds, *cur)
		}
		cur, target = &shellCommand{}, "words"
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '\'' || c == '"':
			j := strings.IndexByte(line[i+1:], c)
			if j < 0 {
				return nil, fmt.Errorf("unterminated %c in %q", c, line)
			}
			quoted := line[i+1 : i+1+j]
			if c == '"' && strings.ContainsAny(quoted, "$`\\") {
				return nil, fmt.Errorf("expansion or escape inside double quotes in %q", line)
			}
			word.WriteString(quoted)
			inWord, i = true, i+1+j
		case c == '\\' && i+1 < len(line):
			word.WriteByte(line[i+1])
			inWord, i = true, i+1
		case c == ' ' || c == '\t':
			flush()
		case c == '#' && !inWord:
			end()
			return cmds, nil
		case c == ';':
			end()
		case c == '&' && strings.HasPrefix(line[i:], "&&"):
			end()
			i++
		case c == '|':
			flush()
			target = "pipe"
		case c == '>':
			flush()
			target = "stdout"
		case strings.IndexByte("<&$`(){}*?", c) >= 0:
			return nil, fmt.Errorf("%q: %c is more shell than the examples runner knows", line, c)
		default:
			word.WriteByte(c)
			inWord = true
		}
	}
	end()
	return cmds, nil
}

func TestParseShell(t *testing.T) {
	cmds, err := parseShell(`planmode answer plan-42 --answer "1=JWT in cookies" --answer '2=no refresh' # a comment`)
	require.NoError(t, err)
	require.Len(t, cmds, 1)
	assert.Equal(t, []string{"planmode", "answer", "plan-42", "--answer", "1=JWT in cookies", "--answer", "2=no refresh"}, cmds[0].words)

	cmds, err = parseShell(`planmode pause plan-42; planmode resume plan-42 && planmode cancel plan-42`)
	require.NoError(t, err)
	require.Len(t, cmds, 3)
	assert.Equal(t, []string{"planmode", "cancel", "plan-42"}, cmds[2].words)

	cmds, err = parseShell(`planmode graph plan-42 --format dot | dot -Tsvg > plan.svg`)
	require.NoError(t, err)
	require.Len(t, cmds, 1)
	assert.Equal(t, []string{"planmode", "graph", "plan-42", "--format", "dot"}, cmds[0].words)
	assert.Equal(t, []string{"dot", "-Tsvg"}, cmds[0].pipe)
	assert.Equal(t, "plan.svg", cmds[0].stdout)

	cmds, err = parseShell(`planmode graph plan-42 > plan.mmd`)
	require.NoError(t, err)
	assert.Equal(t, "plan.mmd", cmds[0].stdout)

	for _, bad := range []string{`planmode show "plan-42`, `planmode show $ID`, `planmode show "$ID"`, `planmode show $(cat id)`} {
		_, err := parseShell(bad)
		assert.Error(t, err, bad)
	}
}

func TestReadExamplesFindsLinesAndFiles(t *testing.T) {
	examples, files := readExamples("help", `  planmode edit plan-42 --file edits.yaml \
    --reason "vet"
  # edits.yaml (what it holds):
  # edits:
  #   - op: remove
  #     stepId: s2
  planmode show plan-42   # then look`)
	require.Len(t, examples, 2)
	assert.Equal(t, `planmode edit plan-42 --file edits.yaml  --reason "vet"`, examples[0].line)
	assert.Equal(t, []docFile{{name: "edits.yaml", content: "edits:\n  - op: remove\n    stepId: s2\n"}}, files)
}
