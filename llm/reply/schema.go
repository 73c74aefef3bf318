package reply

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/sashabaranov/go-openai/jsonschema"

	"github.com/planmode/planmode/llm"
)

// The JSON schemas of the structured replies, sent as response_format
// json_schema when the provider supports it (llm.Config.JSONSchema). They
// are derived from the reply types with go-openai's generator: every
// object has "additionalProperties": false and requires its fields that
// have neither omitempty nor required:"false", and the enum tags give the
// values of the plan's typed strings.
//
// What the generator cannot say is set after it, each for a reason:
//   - A tool step's params are the tool's own arguments, any object. The
//     generator knows no free-form object (a map is an error, raw JSON an
//     array of integers), so params become {"type": "object"}.
//   - An update edit's step is a Step holding only the fields to change,
//     so within an edit nothing of a step is required.
//   - go-openai's Definition has no minItems, minimum or maximum, so the
//     schemas no longer say that options and steps are non-empty or that
//     a confidence lies between 0 and 1. Check refuses both, and the one
//     repair request says why.
//
// The schemas are not "strict" in OpenAI's sense, which wants every
// property required and no free-form object; the checks and the repair
// remain the guard. References are inlined, so each schema is one
// self-contained document as the providers' JSON-schema support expects
// at the least.
var (
	ClarifySchema = mustSchema("clarify_reply", Clarify{})
	OptionsSchema = mustSchema("options_reply", Options{})
	ReflectSchema = mustSchema("reflect_reply", Reflect{})
)

// mustSchema names the schema of v's type. The types are fixed, so a
// failure is a programming error, caught by any test of the package.
func mustSchema(name string, v any) *llm.JSONSchema {
	raw, err := schemaOf(v)
	if err != nil {
		panic(fmt.Sprintf("reply: schema %s: %v", name, err))
	}
	return &llm.JSONSchema{Name: name, Schema: raw}
}

// schemaOf derives the schema of v's type (see above).
func schemaOf(v any) (json.RawMessage, error) {
	root, err := jsonschema.GenerateSchemaForType(v)
	if err != nil {
		return nil, err
	}
	defs := root.Defs
	if err := setProperty(defs, ToolConfig{}, "params", jsonschema.Definition{Type: jsonschema.Object}); err != nil {
		return nil, err
	}
	if step, ok := defs[typeName(Step{})]; ok {
		const patch = "StepPatch"
		step.Required = nil
		defs[patch] = step
		if err := setProperty(defs, Edit{}, "step", jsonschema.Definition{Ref: "#/$defs/" + patch}); err != nil {
			return nil, err
		}
	}
	doc, err := inline(*root, defs, map[string]bool{})
	if err != nil {
		return nil, err
	}
	return json.Marshal(doc)
}

// typeName is the key of v's type among the generator's $defs.
func typeName(v any) string { return reflect.TypeOf(v).Name() }

// setProperty replaces property prop of the definition of owner's type,
// when the schema has that type at all. A property the type lacks is an
// error, so that renaming a field cannot silently undo the change.
func setProperty(defs map[string]jsonschema.Definition, owner any, prop string, d jsonschema.Definition) error {
	def, ok := defs[typeName(owner)]
	if !ok {
		return nil
	}
	if _, ok := def.Properties[prop]; !ok {
		return fmt.Errorf("%s has no property %q", typeName(owner), prop)
	}
	def.Properties[prop] = d
	return nil
}

// inline returns d as a JSON document with every $ref replaced by its
// definition. resolving holds the definitions being inlined, to refuse a
// recursive type, which the reply types are not.
func inline(d jsonschema.Definition, defs map[string]jsonschema.Definition, resolving map[string]bool) (
	map[string]any, error) {
	if d.Ref != "" {
		name := strings.TrimPrefix(d.Ref, "#/$defs/")
		target, ok := defs[name]
		if !ok || resolving[name] {
			return nil, fmt.Errorf("cannot inline %s", d.Ref)
		}
		resolving[name] = true
		defer delete(resolving, name)
		return inline(target, defs, resolving)
	}
	doc := map[string]any{"type": d.Type}
	if len(d.Enum) > 0 {
		doc["enum"] = d.Enum
	}
	if d.Items != nil {
		items, err := inline(*d.Items, defs, resolving)
		if err != nil {
			return nil, err
		}
		doc["items"] = items
	}
	if len(d.Properties) > 0 {
		props := make(map[string]any, len(d.Properties))
		for name, p := range d.Properties {
			prop, err := inline(p, defs, resolving)
			if err != nil {
				return nil, err
			}
			props[name] = prop
		}
		doc["properties"] = props
	}
	if len(d.Required) > 0 {
		doc["required"] = d.Required
	}
	if d.AdditionalProperties != nil {
		doc["additionalProperties"] = d.AdditionalProperties
	}
	return doc, nil
}
