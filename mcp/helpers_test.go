package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// testServer returns an SDK server with the tools of add.
func testServer(add func(*sdk.Server)) *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	add(s)
	return s
}

// inMemory dials s over an in-memory pipe, a new session every connect.
func inMemory(t *testing.T, s *sdk.Server) func(Server) (sdk.Transport, error) {
	return func(Server) (sdk.Transport, error) {
		ct, st := sdk.NewInMemoryTransports()
		if _, err := s.Connect(context.Background(), st, nil); err != nil {
			t.Errorf("server connect: %v", err)
		}
		return ct, nil
	}
}

// startWith starts a manager with one server, name, dialled by dial.
func startWith(t *testing.T, dial func(Server) (sdk.Transport, error), srv Server) *Manager {
	t.Helper()
	if srv.Name == "" {
		srv.Name = "test"
	}
	m := start(context.Background(), Config{Servers: []Server{srv}, ConnectTimeout: 5 * time.Second}, dial)
	t.Cleanup(func() { m.Close() })
	return m
}

// textTool adds a tool answering text with the given annotations.
func textTool(s *sdk.Server, name string, ann *sdk.ToolAnnotations, answer func(args map[string]any) *sdk.CallToolResult) {
	s.AddTool(&sdk.Tool{Name: name, Description: "the " + name + " tool", Annotations: ann,
		InputSchema: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`)},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			var args map[string]any
			_ = json.Unmarshal(req.Params.Arguments, &args)
			return answer(args), nil
		})
}

func text(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
}

// rawPeer is a server that does what serve does with each line it reads.
func rawPeer(serve func(line string, w io.Writer)) func(Server) (sdk.Transport, error) {
	return func(Server) (sdk.Transport, error) {
		c, p := net.Pipe()
		go func() {
			defer p.Close()
			r := bufio.NewScanner(p)
			for r.Scan() {
				serve(strings.TrimSpace(r.Text()), p)
			}
		}()
		return &sdk.IOTransport{Reader: c, Writer: c}, nil
	}
}

func writeFile(path, content string) error { return os.WriteFile(path, []byte(content), 0o600) }
