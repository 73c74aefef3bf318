package reply

import (
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/plan"
)

// schemaDoc decodes a schema.
func schemaDoc(t *testing.T, s *llm.JSONSchema) map[string]any {
	t.Helper()
	var doc map[string]any
	require.NoError(t, json.Unmarshal(s.Schema, &doc), s.Name)
	return doc
}

// walkObjects calls fn with the path of every object schema below doc.
func walkObjects(doc map[string]any, path string, fn func(path string, obj map[string]any)) {
	if doc["type"] == "object" {
		fn(path, doc)
	}
	if items, ok := doc["items"].(map[string]any); ok {
		walkObjects(items, path+"[]", fn)
	}
	props, _ := doc["properties"].(map[string]any)
	for name, p := range props {
		walkObjects(p.(map[string]any), path+"."+name, fn)
	}
}

// required lists an object's required properties, sorted.
func required(obj map[string]any) []string {
	var out []string
	for _, r := range obj["required"].([]any) {
		out = append(out, r.(string))
	}
	sort.Strings(out)
	return out
}

func TestSchemasAreClosedObjects(t *testing.T) {
	for _, s := range []*llm.JSONSchema{ClarifySchema, OptionsSchema, ReflectSchema} {
		objects := 0
		walkObjects(schemaDoc(t, s), s.Name, func(path string, obj map[string]any) {
			objects++
			if strings.HasSuffix(path, ".tool.params") {
				assert.Equal(t, map[string]any{"type": "object"}, obj, "%s: a tool's params are any object", path)
				return
			}
			assert.Equal(t, false, obj["additionalProperties"], "%s allows no other properties", path)
			props := obj["properties"].(map[string]any)
			if obj["required"] != nil {
				for _, r := range required(obj) {
					assert.Contains(t, props, r, "%s requires a property it has", path)
				}
			}
		})
		assert.Positive(t, objects, s.Name)
		assert.NotContains(t, string(s.Schema), "$ref", "%s is self-contained", s.Name)
	}
}

func TestSchemasRequireWhatTheChecksNeed(t *testing.T) {
	want := map[string][]string{
		"clarify_reply":                                {"goal", "needsPlan"},
		"options_reply":                                {"options"},
		"options_reply.options[]":                      {"description", "steps", "title"},
		"options_reply.options[].risks[]":              {"description", "impact", "likelihood"},
		"options_reply.options[].estimates":            nil,
		"options_reply.options[].steps[]":              {"action", "config", "dependsOn", "title"},
		"options_reply.options[].steps[].config":       nil,
		"options_reply.options[].steps[].config.llm":   {"prompt"},
		"options_reply.options[].steps[].config.tool":  {"name"},
		"options_reply.options[].steps[].config.agent": {"prompt"},
		"reflect_reply":                                {"decision", "reason"},
		"reflect_reply.edits[]":                        {"op"},
		"reflect_reply.edits[].step":                   nil,
		"reflect_reply.steps[]":                        {"action", "config", "dependsOn", "title"},
		"reflect_reply.edits[].step.config":            nil,
	}
	got := map[string][]string{}
	for _, s := range []*llm.JSONSchema{ClarifySchema, OptionsSchema, ReflectSchema} {
		walkObjects(schemaDoc(t, s), s.Name, func(path string, obj map[string]any) {
			if obj["required"] != nil {
				got[path] = required(obj)
			} else {
				got[path] = nil
			}
		})
	}
	for path, req := range want {
		require.Contains(t, got, path)
		assert.Equal(t, req, got[path], path)
	}
}

func TestEnumTagsArePlanValues(t *testing.T) {
	want := map[string][]string{
		"Risk.Impact":     strs(plan.ImpactLow, plan.ImpactMedium, plan.ImpactHigh, plan.ImpactCritical),
		"Risk.Likelihood": strs(plan.LikelihoodLow, plan.LikelihoodMedium, plan.LikelihoodHigh),
		"Estimates.Complexity": strs(plan.ComplexityLow, plan.ComplexityMedium, plan.ComplexityHigh,
			plan.ComplexityVeryHigh),
		"Step.Kind": strs(plan.KindFileOperation, plan.KindShellCommand, plan.KindCodeGeneration,
			plan.KindCodeAnalysis, plan.KindValidation, plan.KindTesting),
		"Step.Action": strs(plan.ActionLLM, plan.ActionTool, plan.ActionAgent),
		"Reflect.Decision": strs(plan.DecisionContinue, plan.DecisionSkip, plan.DecisionInsert, plan.DecisionAppend,
			plan.DecisionRemove, plan.DecisionUpdate, plan.DecisionReplan, plan.DecisionComplete),
		"Edit.Op": strs(plan.OpInsertAfter, plan.OpInsertBefore, plan.OpAppend, plan.OpRemove, plan.OpRemoveAfter,
			plan.OpUpdate),
	}
	got := map[string][]string{}
	for _, v := range []any{Risk{}, Estimates{}, Step{}, Reflect{}, Edit{}} {
		rt := reflect.TypeOf(v)
		for i := 0; i < rt.NumField(); i++ {
			if enum := rt.Field(i).Tag.Get("enum"); enum != "" {
				got[rt.Name()+"."+rt.Field(i).Name] = strings.Split(enum, ",")
			}
		}
	}
	assert.Equal(t, want, got)
	assert.Contains(t, string(OptionsSchema.Schema), `"enum":["llm","tool","agent"]`, "the tags reach the schema")
}

// strs turns typed string constants into strings.
func strs[S ~string](vs ...S) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}
