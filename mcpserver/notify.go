package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The SDK sends only the notifications MCP's base protocol names: a
// server session has no way to send notifications/tasks/status. So the
// server sends such a notification as a notifications/progress that
// carries it in _meta under carrierKey, and the transports this package
// serves on (TaskTransport, and Handler's sessions) put the carried
// notification on the wire in its place. A carrier never reaches a host.

// MethodTaskStatus is the notification of a task's new status
// (2025-11-25): its params are the task.
const MethodTaskStatus = "notifications/tasks/status"

// carrierKey is where a carrier holds the notification it carries.
const carrierKey = "planmode/carried"

// carrierToken is a carrier's progress token: no request's.
const carrierToken = "planmode/carrier"

// carried is a notification inside a carrier.
type carried struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// notify sends ss the notification method with params, in a carrier.
func notify(ctx context.Context, ss *mcp.ServerSession, method string, params any) error {
	b, err := json.Marshal(params)
	if err != nil {
		return err
	}
	return ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: carrierToken,
		Meta: mcp.Meta{carrierKey: carried{Method: method, Params: b}}})
}

// uncarry is msg, or the notification it carries when it is a carrier.
func uncarry(msg jsonrpc.Message) jsonrpc.Message {
	req, ok := msg.(*jsonrpc.Request)
	if !ok || req.ID.IsValid() || req.Method != "notifications/progress" || !bytes.Contains(req.Params, []byte(carrierKey)) {
		return msg
	}
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	var c carried
	if json.Unmarshal(req.Params, &p) != nil || p.Meta[carrierKey] == nil || json.Unmarshal(p.Meta[carrierKey], &c) != nil || c.Method == "" {
		return msg
	}
	return &jsonrpc.Request{Method: c.Method, Params: c.Params}
}

// uncarryEvent is b, one server-sent event as the SDK writes it whole
// ("data: " and a JSON-RPC message, after any event, id and retry
// lines), with a carrier in it replaced by what it carries.
func uncarryEvent(b []byte) []byte {
	if !bytes.Contains(b, []byte(carrierKey)) {
		return b
	}
	start := bytes.Index(b, []byte("data: "))
	if start < 0 || (start > 0 && b[start-1] != '\n') || !bytes.HasSuffix(b, []byte("\n\n")) {
		return b
	}
	data := b[start+len("data: ") : len(b)-2]
	msg, err := jsonrpc.DecodeMessage(data)
	if err != nil {
		return b
	}
	out := uncarry(msg)
	if out == msg {
		return b
	}
	enc, err := jsonrpc.EncodeMessage(out)
	if err != nil {
		return b
	}
	return append(append(append([]byte{}, b[:start+len("data: ")]...), enc...), '\n', '\n')
}

// progressTokenKey is where a request's _meta holds its progress token.
const progressTokenKey = "progressToken"
