package mcpserver

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/planmode/planmode/plan"
	"github.com/planmode/planmode/signals"
)

// The tools' schemas are derived from the Go types of the contract's
// payloads and answers, never written by hand, so that a field added to a
// payload reaches the tools by itself. Inference reads a Go type's shape;
// the types below travel in JSON in another shape (their MarshalJSON or
// UnmarshalJSON says so), and are described as they travel.
func typeSchemas() map[reflect.Type]*jsonschema.Schema {
	return map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[plan.Duration](): {Type: "string",
			Description: `a Go duration with its unit: "90s", "5m", "24h"`},
		reflect.TypeFor[signals.Deadline](): {Type: "string",
			Description: `a duration from the plan's start ("2h") or an RFC 3339 time`},
		// Any JSON value: what it must be is the payload's to check. An
		// empty schema would travel as true, which clients that want every
		// property's schema an object (the TypeScript SDK) refuse.
		reflect.TypeFor[json.RawMessage](): {Description: "any JSON value"},
		// A run's state across continue-as-new, which callers never send:
		// plan_start drops the property.
		reflect.TypeFor[signals.Checkpoint](): {Type: "object"},
	}
}

// inputSchema is the input schema of a tool whose arguments decode into
// In: the inference of its Go type, without the by field every payload
// has (the transport names the caller, never the arguments), and with
// the required properties of the top level only. Deeper down a field
// without omitempty is not required of a caller (a step handed in an edit
// need not say its number or status): the payload's Validate and the run
// judge what must be there. fix, when set, adjusts the result.
func inputSchema[In any](fix func(*jsonschema.Schema)) (*jsonschema.Schema, error) {
	s, err := jsonschema.For[In](&jsonschema.ForOptions{TypeSchemas: typeSchemas()})
	if err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	delete(s.Properties, byField)
	s.Required = slices.DeleteFunc(s.Required, func(p string) bool { return p == byField })
	s.PropertyOrder = slices.DeleteFunc(s.PropertyOrder, func(p string) bool { return p == byField })
	for _, p := range s.Properties {
		walk(p, func(c *jsonschema.Schema) { c.Required = nil })
	}
	walk(s, nullableMaps)
	if fix != nil {
		fix(s)
	}
	return s, nil
}

// outputSchema is the output schema of a tool that answers Out: the
// inference of its Go type, a map allowed to be null as Go writes a nil
// one.
func outputSchema[Out any]() (*jsonschema.Schema, error) {
	s, err := jsonschema.For[Out](&jsonschema.ForOptions{TypeSchemas: typeSchemas()})
	if err != nil {
		return nil, fmt.Errorf("output schema: %w", err)
	}
	walk(s, nullableMaps)
	return s, nil
}

// byField is the property every payload names its caller in.
const byField = "by"

// walk calls f on s and every schema below it.
func walk(s *jsonschema.Schema, f func(*jsonschema.Schema)) {
	if s == nil {
		return
	}
	f(s)
	for _, p := range s.Properties {
		walk(p, f)
	}
	walk(s.Items, f)
	walk(s.AdditionalProperties, f)
	for _, c := range s.PrefixItems {
		walk(c, f)
	}
	for _, c := range s.AnyOf {
		walk(c, f)
	}
}

// nullableMaps lets the schema of a Go map take null, which is how Go
// writes a nil map. A map is an object whose additional properties are a
// schema; a struct's are false ({"not": {}}).
func nullableMaps(s *jsonschema.Schema) {
	if s.Type == "object" && s.AdditionalProperties != nil && s.AdditionalProperties.Not == nil {
		s.Types, s.Type = []string{"null", "object"}, ""
	}
}

// requireOnly makes names the only required properties of s.
func requireOnly(names ...string) func(*jsonschema.Schema) {
	return func(s *jsonschema.Schema) { s.Required = names }
}

// drop removes the properties names from s: fields a caller may not send.
func drop(names ...string) func(*jsonschema.Schema) {
	return func(s *jsonschema.Schema) {
		for _, n := range names {
			delete(s.Properties, n)
		}
		s.Required = slices.DeleteFunc(s.Required, func(p string) bool { return slices.Contains(names, p) })
		s.PropertyOrder = slices.DeleteFunc(s.PropertyOrder, func(p string) bool { return slices.Contains(names, p) })
	}
}

// enum restricts property name of s to values.
func enum[T ~string](name string, values ...T) func(*jsonschema.Schema) {
	return func(s *jsonschema.Schema) {
		p := s.Properties[name]
		if p == nil {
			return
		}
		for _, v := range values {
			p.Enum = append(p.Enum, string(v))
		}
	}
}

// fixes applies each of fs in turn.
func fixes(fs ...func(*jsonschema.Schema)) func(*jsonschema.Schema) {
	return func(s *jsonschema.Schema) {
		for _, f := range fs {
			f(s)
		}
	}
}
