package tools

import (
	"path"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// glob matches slash-separated relative paths with doublestar's syntax:
// path.Match's * ? [..] within a name, {a,b} alternatives, and a "**"
// segment for any number of directories (zero included). A pattern
// without a slash matches a file's base name at any depth, so "*.go"
// finds every Go file; a leading slash anchors it at the root ("/*.go").
// The zero glob matches everything.
type glob struct {
	pattern string
}

// compileGlob validates pattern.
func compileGlob(pattern string) (glob, error) {
	anchored := strings.HasPrefix(pattern, "/")
	clean := strings.TrimPrefix(path.Clean("/"+pattern), "/")
	if clean == "" {
		return glob{}, Failf("invalid argument \"pattern\": empty pattern")
	}
	if !anchored && !strings.Contains(clean, "/") && clean != "**" {
		clean = "**/" + clean
	}
	if !doublestar.ValidatePattern(clean) {
		return glob{}, Failf("invalid argument \"pattern\": bad glob %q: %v", pattern, doublestar.ErrBadPattern)
	}
	return glob{pattern: clean}, nil
}

// match reports whether the relative slash path rel matches; the zero
// glob matches every path.
func (g glob) match(rel string) bool {
	if g.pattern == "" {
		return true
	}
	ok, _ := doublestar.Match(g.pattern, rel) // validated in compileGlob
	return ok
}
