package mcp

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/planmode/planmode/tools"
)

// Tool is one server tool as a plan records it.
type Tool struct {
	// Name is the public name the model calls it by (PublicName).
	Name string `json:"name"`
	// Server and RealName say where it goes.
	Server   string `json:"server"`
	RealName string `json:"realName"`
	// Description is the server's, as it gave it.
	Description string `json:"description,omitempty"`
	// Parameters is the tool's input JSON Schema.
	Parameters json.RawMessage `json:"parameters"`
	// ReadOnly and Idempotent are the server's readOnlyHint and
	// idempotentHint: hints a server gives, not guarantees.
	ReadOnly   bool `json:"readOnly,omitempty"`
	Idempotent bool `json:"idempotent,omitempty"`
}

// Problem is a server, or one tool of it, left out of the catalogue, and
// why.
type Problem struct {
	Server string `json:"server"`
	Tool   string `json:"tool,omitempty"`
	Reason string `json:"reason"`
}

// String says which and why, for logs.
func (p Problem) String() string {
	if p.Tool == "" {
		return fmt.Sprintf("MCP server %s: %s", p.Server, p.Reason)
	}
	return fmt.Sprintf("MCP server %s, tool %s: %s", p.Server, p.Tool, p.Reason)
}

// Catalogue is every tool the configured servers offer, sorted by public
// name, with a digest of them that changes whenever any tool does.
type Catalogue struct {
	Tools    []Tool    `json:"tools"`
	Digest   string    `json:"digest"`
	Problems []Problem `json:"problems,omitempty"`
}

// Tool returns the tool with the public name name.
func (c Catalogue) Tool(name string) (Tool, bool) {
	i := slices.IndexFunc(c.Tools, func(t Tool) bool { return t.Name == name })
	if i < 0 {
		return Tool{}, false
	}
	return c.Tools[i], true
}

// digest returns the sha256 of the tools' JSON.
func digest(ts []Tool) string {
	b, _ := json.Marshal(ts) // plain structs: cannot fail
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// newCatalogue sorts ts, refuses public names that collide (two real
// names that sanitise alike) and computes the digest.
func newCatalogue(ts []Tool, problems []Problem) Catalogue {
	slices.SortFunc(ts, func(a, b Tool) int { return strings.Compare(a.Name, b.Name) })
	var keep []Tool
	for i := 0; i < len(ts); {
		j := i + 1
		for j < len(ts) && ts[j].Name == ts[i].Name {
			j++
		}
		if j-i == 1 {
			keep = append(keep, ts[i])
		} else {
			for _, t := range ts[i:j] {
				problems = append(problems, Problem{Server: t.Server, Tool: t.RealName,
					Reason: fmt.Sprintf("its public name %s is also another tool's; both are left out", t.Name)})
			}
		}
		i = j
	}
	if keep == nil {
		keep = []Tool{}
	}
	return Catalogue{Tools: keep, Digest: digest(keep), Problems: problems}
}

// serverTools turns what server s listed into catalogue tools: the
// allow-list applied, at most MaxToolsPerServer by name, schemas checked.
func serverTools(s Server, listed []*sdk.Tool) ([]Tool, []Problem) {
	var problems []Problem
	slices.SortFunc(listed, func(a, b *sdk.Tool) int { return strings.Compare(a.Name, b.Name) })
	if len(s.Tools) > 0 {
		listed = slices.DeleteFunc(listed, func(t *sdk.Tool) bool { return !slices.Contains(s.Tools, t.Name) })
		for _, want := range s.Tools {
			if !slices.ContainsFunc(listed, func(t *sdk.Tool) bool { return t.Name == want }) {
				problems = append(problems, Problem{Server: s.Name, Tool: want,
					Reason: "named in the allow-list (tools) but not offered by the server"})
			}
		}
	}
	if len(listed) > MaxToolsPerServer {
		problems = append(problems, Problem{Server: s.Name, Reason: fmt.Sprintf("it offers %d tools; only the "+
			"first %d by name are kept: name the ones plans need in mcp.servers.%s.tools", len(listed),
			MaxToolsPerServer, s.Name)})
		listed = listed[:MaxToolsPerServer]
	}
	var out []Tool
	for _, t := range listed {
		schema, err := checkSchema(t.InputSchema)
		if err != nil {
			problems = append(problems, Problem{Server: s.Name, Tool: t.Name, Reason: err.Error()})
			continue
		}
		tool := Tool{Name: PublicName(s.Name, t.Name), Server: s.Name, RealName: t.Name,
			Description: t.Description, Parameters: schema}
		if a := t.Annotations; a != nil {
			tool.ReadOnly, tool.Idempotent = a.ReadOnlyHint, a.IdempotentHint || a.ReadOnlyHint
		}
		out = append(out, tool)
	}
	return out, problems
}

// checkSchema returns a tool's input schema as compact JSON, or why it is
// refused: larger than tools.MaxSchemaBytes, not an object of type
// "object", or not JSON Schema.
func checkSchema(in any) (json.RawMessage, error) {
	raw, err := json.Marshal(in)
	if err != nil {
		return nil, fmt.Errorf("its input schema cannot be encoded: %v", err)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return nil, fmt.Errorf("its input schema is not JSON: %v", err)
	}
	if buf.Len() > tools.MaxSchemaBytes {
		return nil, fmt.Errorf("its input schema is %d bytes, more than the %d a tool may have", buf.Len(), tools.MaxSchemaBytes)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(buf.Bytes(), &s); err != nil {
		return nil, fmt.Errorf("its input schema is not JSON Schema: %v", err)
	}
	if s.Type != "object" {
		return nil, fmt.Errorf(`its input schema is not of type "object"`)
	}
	if _, err := s.Resolve(nil); err != nil {
		return nil, fmt.Errorf("its input schema is not valid JSON Schema: %v", err)
	}
	return buf.Bytes(), nil
}
