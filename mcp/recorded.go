package mcp

import "fmt"

// ReadOnly returns the tools of names that c marks read-only, when c is
// the catalogue of digest, the one a plan recorded; none when it is not
// (the tools changed: the names may mean other tools now).
func (c Catalogue) ReadOnly(digest string, names []string) []Tool {
	if len(names) == 0 || c.Digest != digest {
		return nil
	}
	var out []Tool
	for _, n := range names {
		if t, ok := c.Tool(n); ok && t.ReadOnly {
			out = append(out, t)
		}
	}
	return out
}

// Recorded returns the tool a plan calls by name under the catalogue it
// recorded, digest: a call without a digest, or of a name c lacks, is an
// ErrUnknownTool error, one under another catalogue than c an
// ErrCatalogueChanged error, and neither may be made.
func (c Catalogue) Recorded(digest, name string) (Tool, error) {
	if digest == "" {
		return Tool{}, refusal{ErrUnknownTool, "call of " + name + " without the catalogue digest the plan recorded"}
	}
	if digest != c.Digest {
		return Tool{}, refusal{ErrCatalogueChanged, fmt.Sprintf("the MCP tools changed since the plan listed them "+
			"(digest %s, now %s): %s is not called", digest, c.Digest, name)}
	}
	t, ok := c.Tool(name)
	if !ok {
		return Tool{}, refusal{ErrUnknownTool, "unknown MCP tool " + name}
	}
	return t, nil
}

// refusal is a call refused before it is made: kind says why, msg says it
// in full.
type refusal struct {
	kind error
	msg  string
}

func (r refusal) Error() string { return r.msg }
func (r refusal) Unwrap() error { return r.kind }
