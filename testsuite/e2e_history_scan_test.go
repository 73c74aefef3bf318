package testsuite

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// payloadName is the protobuf name of a Temporal payload, wherever in an
// event it sits (inputs, results, memos, headers, failure details, user
// metadata, search attributes).
var payloadName = (&commonpb.Payload{}).ProtoReflect().Descriptor().FullName()

// scanned is one piece of history as an attacker reading it would see it.
type scanned struct {
	// where names the run, the event and the field path.
	where string
	text  string
}

// foundIn returns the places of texts that contain needle.
func foundIn(texts []scanned, needle string) []string {
	var out []string
	for _, s := range texts {
		if strings.Contains(s.text, needle) {
			out = append(out, s.where)
		}
	}
	return out
}

// closedRuns lists every run on queue in the namespace once at least want
// of them are closed (visibility lags the runs a little).
func closedRuns(ctx context.Context, t *testing.T, c client.Client, namespace, queue string, want int) []*workflowpb.WorkflowExecutionInfo {
	t.Helper()
	var runs []*workflowpb.WorkflowExecutionInfo
	require.Eventually(t, func() bool {
		resp, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
			Namespace: namespace, Query: fmt.Sprintf("TaskQueue = '%s'", queue),
		})
		if err != nil {
			return false
		}
		runs = resp.GetExecutions()
		closed := 0
		for _, r := range runs {
			if r.GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
				closed++
			}
		}
		return closed >= want
	}, loadedWait, 50*time.Millisecond, "%d closed runs on %s are listed", want, queue)
	return runs
}

// historyTexts reads the whole history of every run and returns what it
// holds: each event as protojson (failure messages, identities and other
// plain strings) and every payload of it, raw and decoded by the default
// data converter. With skipSearchAttributes the payloads under
// search_attributes and their protojson are left out.
func historyTexts(ctx context.Context, t *testing.T, c client.Client, runs []*workflowpb.WorkflowExecutionInfo,
	skipSearchAttributes bool) []scanned {
	t.Helper()
	var out []scanned
	for _, r := range runs {
		id, runID := r.GetExecution().GetWorkflowId(), r.GetExecution().GetRunId()
		it := c.GetWorkflowHistory(ctx, id, runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		for it.HasNext() {
			ev, err := it.Next()
			require.NoError(t, err)
			out = append(out, eventTexts(t, fmt.Sprintf("%s/%s#%d %s", id, runID, ev.GetEventId(), ev.GetEventType()),
				ev, skipSearchAttributes)...)
		}
	}
	return out
}

// eventTexts is historyTexts for one event.
func eventTexts(t *testing.T, where string, ev *historypb.HistoryEvent, skipSearchAttributes bool) []scanned {
	t.Helper()
	var out []scanned
	dc := converter.GetDefaultDataConverter()
	walkPayloads(ev.ProtoReflect(), "", func(path string, p *commonpb.Payload) {
		if skipSearchAttributes && strings.Contains(path, "search_attributes") {
			// Cleared below so that the event's protojson leaves them out too.
			p.Data = nil
			return
		}
		text := string(p.GetData())
		var v any
		if err := dc.FromPayload(p, &v); err == nil {
			if b, err := json.Marshal(v); err == nil {
				text += "\n" + string(b)
			}
		}
		out = append(out, scanned{where: where + " " + path, text: text})
	})
	b, err := protojson.Marshal(ev)
	require.NoError(t, err)
	return append(out, scanned{where: where, text: string(b)})
}

// walkPayloads calls visit with every payload in m and its field path.
func walkPayloads(m protoreflect.Message, path string, visit func(string, *commonpb.Payload)) {
	if m.Descriptor().FullName() == payloadName {
		visit(path, m.Interface().(*commonpb.Payload))
		return
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		p := path + "." + string(fd.Name())
		switch {
		case fd.IsMap():
			if fd.MapValue().Message() != nil {
				v.Map().Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
					walkPayloads(mv.Message(), p+"["+k.String()+"]", visit)
					return true
				})
			}
		case fd.IsList():
			if fd.Message() != nil {
				for i := range v.List().Len() {
					walkPayloads(v.List().Get(i).Message(), fmt.Sprintf("%s[%d]", p, i), visit)
				}
			}
		case fd.Message() != nil:
			walkPayloads(v.Message(), p, visit)
		}
		return true
	})
}
