package offline

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/planmode/planmode/activities"
)

// jsonFields lists a struct type's fields as "jsonTag:kind", following
// nested structs and slices of structs.
func jsonFields(t reflect.Type, prefix string) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		ft := f.Type
		for ft.Kind() == reflect.Slice || ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		out = append(out, prefix+tag+":"+f.Type.Kind().String())
		if ft.Kind() == reflect.Struct && ft.PkgPath() != "github.com/planmode/planmode/plan" {
			out = append(out, jsonFields(ft, prefix+tag+".")...)
		}
	}
	return out
}

// TestWireMirrorsActivities checks that the brain's reply types have
// exactly the JSON fields of the activities' reply types.
func TestWireMirrorsActivities(t *testing.T) {
	pairs := []struct{ mine, theirs any }{
		{clarifyReply{}, activities.ClarifyReply{}},
		{optionsReply{}, activities.OptionsReply{}},
		{reflectReply{}, activities.ReflectReply{}},
	}
	for _, p := range pairs {
		mine, theirs := reflect.TypeOf(p.mine), reflect.TypeOf(p.theirs)
		assert.Equal(t, jsonFields(theirs, ""), jsonFields(mine, ""), mine.Name())
	}
}

// TestRepliesDecodeIntoActivities decodes the brain's replies strictly
// into the activities' reply types and checks nothing is lost.
func TestRepliesDecodeIntoActivities(t *testing.T) {
	b := NewOfflineBrain()
	cases := []struct {
		phase string
		reply Reply
		into  any
	}{
		{PhaseClarify, b.Reply(PhaseClarify, clarifyRequest("fix it", true, nil, demoFiles)), &activities.ClarifyReply{}},
		{PhaseClarify, b.Reply(PhaseClarify, clarifyRequest("who wrote cart.go?", false, nil, demoFiles)), &activities.ClarifyReply{}},
		{PhasePlan, b.Reply(PhasePlan, planReq(planFixture{goal: "Refactor the cart", count: 5, files: demoFiles, tools: allTools})), &activities.OptionsReply{}},
		{PhaseReflect, b.Reply(PhaseReflect, reflectRequest("s1", false, "boom", "s2 Next")), &activities.ReflectReply{}},
	}
	for _, c := range cases {
		dec := json.NewDecoder(bytes.NewReader([]byte(c.reply.Content)))
		dec.DisallowUnknownFields()
		require.NoError(t, dec.Decode(c.into), c.phase)
		again, err := json.Marshal(c.into)
		require.NoError(t, err)
		assert.JSONEq(t, c.reply.Content, string(again), c.phase)
	}
}
