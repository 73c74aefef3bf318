package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
)

// Bounds of search_code.
const (
	defaultMatches = 100
	hardMatches    = 1000
	// maxMatchLine caps one reported line.
	maxMatchLine = 240
	// binarySniff is how much of a file is checked for NUL bytes.
	binarySniff = 8000
)

type searchCodeArgs struct {
	Pattern string `json:"pattern"`
	Glob    string `json:"glob,omitempty"`
	Max     int    `json:"max,omitempty"`
}

// searchCodeTool greps the workspace with an RE2 expression.
func searchCodeTool(cfg Config) Tool {
	return Tool{
		Spec: Spec{
			Name: "search_code",
			Description: fmt.Sprintf("Search workspace text files for lines matching an RE2 regular expression; "+
				"answers path:line: text. Skips binary files, .git and files over %d bytes; at most max matches "+
				"(default %d, up to %d).", cfg.MaxReadBytes, defaultMatches, hardMatches),
			Parameters: schema(map[string]string{
				"pattern": `{"type":"string","description":"e.g. func \\w+Handler"}`,
				"glob":    `{"type":"string","description":"only matching files, e.g. **/*.go"}`,
				"max":     `{"type":"integer","minimum":1}`,
			}, "pattern"),
			ReadOnly: true,
		},
		Run: func(ctx context.Context, env Env, raw json.RawMessage) (Result, error) {
			var a searchCodeArgs
			if err := DecodeArgs(raw, &a); err != nil {
				return Result{}, err
			}
			if err := required("pattern", a.Pattern); err != nil {
				return Result{}, err
			}
			return searchCode(ctx, env, a, cfg)
		},
	}
}

// searchCode runs the search.
func searchCode(ctx context.Context, env Env, a searchCodeArgs, cfg Config) (Result, error) {
	re, err := regexp.Compile(a.Pattern)
	if err != nil {
		return Result{}, Failf("invalid argument \"pattern\": %v", err)
	}
	var g glob
	if a.Glob != "" {
		if g, err = compileGlob(a.Glob); err != nil {
			return Result{}, err
		}
	}
	max, err := boundMax(a.Max, defaultMatches, hardMatches)
	if err != nil {
		return Result{}, err
	}
	r, err := env.Root.open()
	if err != nil {
		return Result{}, err
	}
	defer r.Close()
	var matches []string
	more, err := walkFiles(ctx, env, r, g, func(rel, name string) bool {
		return grepFile(r, name, rel, re, cfg.MaxReadBytes, max, &matches)
	})
	if err != nil {
		return Result{}, err
	}
	if len(matches) == 0 {
		return Result{Output: "(no matches)"}, nil
	}
	return listing(matches, more, max, cfg.MaxOutputBytes), nil
}

// grepFile appends the matching lines of the file name of r; it returns
// false once max matches are exceeded. Files readRegular refuses (too
// large, hard-linked, swapped for something else than a regular file
// inside the workspace) are skipped.
func grepFile(r *os.Root, name, rel string, re *regexp.Regexp, maxRead int64, max int, out *[]string) bool {
	data, err := readRegular(r, name, rel, maxRead)
	if err != nil || bytes.IndexByte(data[:min(len(data), binarySniff)], 0) >= 0 {
		return true
	}
	for i, line := range strings.Split(string(data), "\n") {
		if !re.MatchString(line) {
			continue
		}
		if len(*out) == max {
			return false
		}
		line = clip(strings.TrimRight(line, "\r"), maxMatchLine)
		*out = append(*out, fmt.Sprintf("%s:%d: %s", rel, i+1, line))
	}
	return true
}
