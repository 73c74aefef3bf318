package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
)

// DecodeArgs decodes a tool's JSON arguments into dst strictly: unknown
// fields, wrong types, malformed JSON and trailing data are [*ToolError]s
// that name the argument at fault. Empty args or null decode as {}.
func DecodeArgs(args json.RawMessage, dst any) error {
	trimmed := bytes.TrimSpace(args)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return argError(err, dst)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return Failf("invalid arguments: unexpected data after the JSON object")
	}
	return nil
}

// argError turns a decoding error into a message the agent can act on.
func argError(err error, dst any) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field == "" {
			return Failf("invalid arguments: expected a JSON object, got %s", te.Value)
		}
		return Failf("invalid argument %q: expected %s, got %s", te.Field, jsonKind(te.Type), te.Value)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return Failf("invalid arguments: malformed JSON at offset %d: %v", se.Offset, err)
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return Failf("unknown argument %s; expected one of: %s", name, strings.Join(fieldNames(dst), ", "))
	}
	return Failf("invalid arguments: %v", err)
}

// jsonKind names a Go type the way a JSON schema would.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array of " + strings.TrimPrefix(strings.TrimPrefix(jsonKind(t.Elem()), "a "), "an ") + "s"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return t.String()
}

// fieldNames lists dst's JSON field names.
func fieldNames(dst any) []string {
	t := reflect.TypeOf(dst)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	var names []string
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			names = append(names, name)
		}
	}
	return names
}

// required returns a ToolError when a required string argument is empty.
func required(name, value string) error {
	if strings.TrimSpace(value) == "" {
		return Failf("missing argument %q", name)
	}
	return nil
}

// schema builds a JSON schema object from property definitions (raw JSON)
// and the required names; additional properties are refused, matching the
// strict decoding.
func schema(props map[string]string, requiredNames ...string) json.RawMessage {
	p := make(map[string]json.RawMessage, len(props))
	for k, v := range props {
		p[k] = json.RawMessage(v)
	}
	s := map[string]any{"type": "object", "properties": p, "additionalProperties": false}
	if len(requiredNames) > 0 {
		s["required"] = requiredNames
	}
	data, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("tool schema: %v", err))
	}
	return data
}
