package tools

import (
	"path"
	"strings"
)

// glob matches slash-separated relative paths against a pattern whose
// segments follow path.Match and where a "**" segment matches any number of
// directories (zero included). A pattern without a slash matches a file's
// base name at any depth, so "*.go" finds every Go file; a leading slash
// anchors it at the root ("/*.go").
type glob struct {
	segs []string
}

// compileGlob validates pattern.
func compileGlob(pattern string) (glob, error) {
	anchored := strings.HasPrefix(pattern, "/")
	pattern = strings.TrimPrefix(path.Clean("/"+pattern), "/")
	if pattern == "" {
		return glob{}, Failf("invalid argument \"pattern\": empty pattern")
	}
	segs := strings.Split(pattern, "/")
	if len(segs) == 1 && segs[0] != "**" && !anchored {
		segs = []string{"**", segs[0]}
	}
	for _, s := range segs {
		if _, err := path.Match(s, ""); err != nil {
			return glob{}, Failf("invalid argument \"pattern\": bad glob %q: %v", pattern, err)
		}
	}
	return glob{segs: segs}, nil
}

// match reports whether the relative slash path rel matches.
func (g glob) match(rel string) bool {
	return matchSegs(g.segs, strings.Split(rel, "/"))
}

// matchSegs matches pattern segments against path segments.
func matchSegs(pat, segs []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for len(pat) > 1 && pat[1] == "**" {
				pat = pat[1:]
			}
			if len(pat) == 1 {
				return true
			}
			for i := range len(segs) + 1 {
				if matchSegs(pat[1:], segs[i:]) {
					return true
				}
			}
			return false
		}
		if len(segs) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], segs[0]); !ok {
			return false
		}
		pat, segs = pat[1:], segs[1:]
	}
	return len(segs) == 0
}
