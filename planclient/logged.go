package planclient

import (
	"context"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/planmode/planmode/signals"
)

// How far back loggedProgress reads a run's history: a run's log carries
// its progress at least once every signals.ProgressSnapshotEvery batches,
// a batch per workflow task, and a task writes a handful of events, so
// the newest progress is nearly always on the first page.
const (
	loggedPageSize = 256
	loggedPages    = 2
)

// loggedProgress reads how the running run info describes stands from
// its event log, newest first: the newest batch that carries the run's
// progress, brought to now with the events written after it
// (signals.Progress.Since). It reads history only, so it needs no
// workflow task: it answers at once however busy the plan's worker is,
// and while no worker runs. ok is false for a run that is not running,
// when the history cannot be read, and when no batch within the pages it
// reads carries the progress (a run of a build that did not write it):
// the caller asks otherwise.
func (c *Client) loggedProgress(ctx context.Context, id string, info *workflowpb.WorkflowExecutionInfo) (p signals.Progress, ok bool) {
	if info.GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		return p, false
	}
	req := &workflowservice.GetWorkflowExecutionHistoryReverseRequest{
		Namespace: c.namespace, Execution: &commonpb.WorkflowExecution{WorkflowId: id, RunId: info.GetExecution().GetRunId()},
		MaximumPageSize: loggedPageSize,
	}
	var later []signals.Event
	for range loggedPages {
		resp, err := c.c.WorkflowService().GetWorkflowExecutionHistoryReverse(ctx, req)
		if err != nil {
			return p, false
		}
		for _, he := range resp.GetHistory().GetEvents() {
			if he.GetEventType() != enumspb.EVENT_TYPE_MARKER_RECORDED {
				continue
			}
			b, isLog := c.batchOf(he.GetMarkerRecordedEventAttributes())
			if !isLog {
				continue
			}
			if b.Progress != nil {
				return signals.Progress(*b.Progress).Since(b.At, time.Now(), later), true
			}
			later = append(b.Stamped(), later...)
		}
		if len(resp.GetNextPageToken()) == 0 {
			break
		}
		req.NextPageToken = resp.GetNextPageToken()
	}
	return p, false
}
