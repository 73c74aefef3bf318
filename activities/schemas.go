package activities

import (
	"encoding/json"

	"github.com/planmode/planmode/llm"
)

// The JSON schemas of the structured replies, sent as response_format
// json_schema when the provider supports it (LLMConfig.JSONSchema). They are
// written by hand after the reply types in replies.go and are not strict:
// the parser checks what matters and asks for one repair.

// stepProperties are the properties of StepReply.
const stepProperties = `{"type":"object","properties":{` +
	`"id":{"type":"string"},"title":{"type":"string"},"description":{"type":"string"},` +
	`"kind":{"type":"string","enum":["file_operation","shell_command","code_generation","code_analysis",` +
	`"validation","testing"]},` +
	`"action":{"type":"string","enum":["llm","tool","agent"]},` +
	`"config":{"type":"object","properties":{` +
	`"llm":{"type":"object","properties":{"prompt":{"type":"string"},"model":{"type":"string"},` +
	`"temperature":{"type":"number"},"maxTokens":{"type":"integer"},"systemPrompt":{"type":"string"}},` +
	`"required":["prompt"]},` +
	`"tool":{"type":"object","properties":{"name":{"type":"string"},"params":{"type":"object"},` +
	`"validateOutput":{"type":"boolean"}},"required":["name"]},` +
	`"agent":{"type":"object","properties":{"prompt":{"type":"string"},` +
	`"tools":{"type":"array","items":{"type":"string"}},"maxIterations":{"type":"integer"}},` +
	`"required":["prompt"]}}},` +
	`"dependsOn":{"type":"array","items":{"type":"string"}},"maxRetries":{"type":"integer"},` +
	`"skippable":{"type":"boolean"},"estimatedSeconds":{"type":"number"}}`

// stepSchema is the schema of a new step (StepReply).
const stepSchema = stepProperties + `,"required":["title","action","config"]}`

// stepPatchSchema is the schema of an update edit's step: only the fields
// to change.
const stepPatchSchema = stepProperties + `}`

// clarifySchema is the schema of ClarifyReply.
var clarifySchema = &llm.JSONSchema{Name: "clarify_reply", Schema: json.RawMessage(`{"type":"object","properties":{` +
	`"goal":{"type":"string"},"needsPlan":{"type":"boolean"},"directAnswer":{"type":"string"},` +
	`"questions":{"type":"array","items":{"type":"string"}}},"required":["goal","needsPlan"]}`)}

// optionsSchema is the schema of OptionsReply.
var optionsSchema = &llm.JSONSchema{Name: "options_reply", Schema: json.RawMessage(`{"type":"object","properties":{` +
	`"options":{"type":"array","minItems":1,"items":{"type":"object","properties":{` +
	`"title":{"type":"string"},"description":{"type":"string"},` +
	`"pros":{"type":"array","items":{"type":"string"}},"cons":{"type":"array","items":{"type":"string"}},` +
	`"risks":{"type":"array","items":{"type":"object","properties":{"description":{"type":"string"},` +
	`"impact":{"type":"string","enum":["low","medium","high","critical"]},` +
	`"likelihood":{"type":"string","enum":["low","medium","high"]},"mitigation":{"type":"string"}},` +
	`"required":["description","impact","likelihood"]}},` +
	`"estimates":{"type":"object","properties":{"durationMinutes":{"type":"number"},` +
	`"complexity":{"type":"string","enum":["low","medium","high","very_high"]},` +
	`"confidence":{"type":"number","minimum":0,"maximum":1}}},` +
	`"steps":{"type":"array","minItems":1,"items":` + stepSchema + `}},` +
	`"required":["title","description","steps"]}}},"required":["options"]}`)}

// reflectSchema is the schema of ReflectReply.
var reflectSchema = &llm.JSONSchema{Name: "reflect_reply", Schema: json.RawMessage(`{"type":"object","properties":{` +
	`"decision":{"type":"string","enum":["continue","skip","insert","append","remove","update","replan",` +
	`"complete"]},` +
	`"stepIds":{"type":"array","items":{"type":"string"}},"reason":{"type":"string"},` +
	`"confidence":{"type":"number","minimum":0,"maximum":1},` +
	`"edits":{"type":"array","items":{"type":"object","properties":{` +
	`"op":{"type":"string","enum":["insertAfter","insertBefore","append","remove","removeAfter","update"]},` +
	`"stepId":{"type":"string"},"step":` + stepPatchSchema + `},"required":["op"]}},` +
	`"steps":{"type":"array","items":` + stepSchema + `},"response":{"type":"string"}},` +
	`"required":["decision","reason"]}`)}
