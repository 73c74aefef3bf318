package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/planmode/planmode/internal/version"
	"github.com/planmode/planmode/tools"
)

// maxListed bounds how many tools are read from one server's listing
// before the rest are ignored.
const maxListed = 10 * MaxToolsPerServer

// conn is the session with one server. sem serializes connecting and
// closing; the catalogue fields (tools, problems) are guarded by the
// manager's mu.
type conn struct {
	m   *Manager
	cfg Server
	sem chan struct{}

	session *sdk.ClientSession
	proc    *tools.RunningService
	stderr  *tail
	broken  bool

	tools    []Tool
	problems []Problem
}

// connect starts or dials the server, lists its tools and records them;
// c.sem is held. It returns whether the tools differ from those recorded
// before. Its errors say why, with what the server wrote to its standard
// error.
func (c *conn) connect() (changed bool, err error) {
	c.close()
	ctx, cancel := context.WithTimeout(c.m.ctx, c.m.cfg.connectTimeout())
	defer cancel()
	tr, err := c.transport()
	if err != nil {
		return false, err
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "planmode", Version: version.Version()}, nil)
	cs, err := client.Connect(ctx, tr, nil)
	if err != nil {
		err = c.explain(ctx, "connect", err)
		c.close()
		return false, err
	}
	c.session, c.broken = cs, false
	var listed []*sdk.Tool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			err = c.explain(ctx, "list tools", err)
			c.close()
			return false, err
		}
		if listed = append(listed, t); len(listed) >= maxListed {
			break
		}
	}
	ts, problems := serverTools(c.cfg, listed)
	c.m.mu.Lock()
	defer c.m.mu.Unlock()
	changed = digest(ts) != digest(c.tools)
	c.tools, c.problems = ts, problems
	return changed, nil
}

// explain makes err of step say whether the connect timeout passed and
// what the server wrote to its standard error.
func (c *conn) explain(ctx context.Context, step string, err error) error {
	msg := fmt.Sprintf("%s: %v", step, err)
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		msg = fmt.Sprintf("%s: no answer within %s", step, c.m.cfg.connectTimeout())
	}
	if c.proc != nil {
		select {
		case <-c.proc.Exited():
			msg += "; the server exited"
		default:
		}
	}
	if t := c.stderr.String(); t != "" {
		msg += "; its standard error ends with: " + t
	}
	return errors.New(msg)
}

// close ends the session and stops the server's process. It returns the
// error of stopping the process; closing a session whose server died
// reports that, which is no news.
func (c *conn) close() error {
	if c.session != nil {
		_ = c.session.Close()
		c.session = nil
	}
	var err error
	if c.proc != nil {
		err = c.proc.Stop()
		c.proc = nil
	}
	return err
}

// ready returns a live session, restarting the server first when it
// crashed or its connection broke: within the connect timeout, or not at
// all when ctx ends first.
func (c *conn) ready(ctx context.Context) (*sdk.ClientSession, error) {
	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-c.sem }()
	if c.session != nil && !c.broken && !c.exited() {
		return c.session, nil
	}
	c.m.log.Warn("MCP server restarting", "server", c.cfg.Name)
	changed, err := c.connect()
	if err != nil {
		return nil, fmt.Errorf("%w: server %s: %v", ErrUnavailable, c.cfg.Name, err)
	}
	if changed {
		c.m.mu.Lock()
		c.m.rebuild()
		c.m.mu.Unlock()
		return nil, fmt.Errorf("%w: server %s offers other tools since it restarted", ErrCatalogueChanged, c.cfg.Name)
	}
	return c.session, nil
}

// exited reports whether a stdio server's process has ended.
func (c *conn) exited() bool {
	if c.proc == nil {
		return false
	}
	select {
	case <-c.proc.Exited():
		return true
	default:
		return false
	}
}

// call makes one call of t.
func (c *conn) call(ctx context.Context, t Tool, args []byte) (Result, error) {
	cs, err := c.ready(ctx)
	if err != nil {
		return Result{}, err
	}
	timeout := c.cfg.timeout()
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := cs.CallTool(cctx, &sdk.CallToolParams{Name: t.RealName, Arguments: jsonArgs(args)})
	var wire *jsonrpc.Error
	switch {
	case err == nil:
		return result(res), nil
	case errors.As(err, &wire):
		// The server answered: it refused the request and ran nothing.
		return Result{IsError: true, Text: fmt.Sprintf("server %s refused the call: %s", c.cfg.Name, wire.Message)}, nil
	case ctx.Err() != nil:
		return Result{}, fmt.Errorf("%w: %s: the call was abandoned: %v", ErrOutcomeUnknown, t.Name, ctx.Err())
	case errors.Is(cctx.Err(), context.DeadlineExceeded):
		return Result{}, fmt.Errorf("%w: %s: no answer within %s (mcp.servers.%s.timeout)", ErrOutcomeUnknown,
			t.Name, timeout, c.cfg.Name)
	}
	c.markBroken()
	return Result{}, fmt.Errorf("%w: %s: %v", ErrOutcomeUnknown, t.Name, c.explain(cctx, "call", err))
}

// markBroken makes the next call restart the server.
func (c *conn) markBroken() {
	c.sem <- struct{}{}
	c.broken = true
	<-c.sem
}

// result converts the SDK's answer.
func result(res *sdk.CallToolResult) Result {
	out := Result{IsError: res.IsError}
	var parts []string
	for _, ct := range res.Content {
		parts = append(parts, contentText(ct))
	}
	out.Text = strings.Join(parts, "\n")
	if res.StructuredContent != nil {
		if b, err := jsonMarshal(res.StructuredContent); err == nil {
			out.Structured = b
		}
	}
	return out
}

// contentText is a content part as text.
func contentText(ct sdk.Content) string {
	switch v := ct.(type) {
	case *sdk.TextContent:
		return v.Text
	case *sdk.ImageContent:
		return fmt.Sprintf("[image %s, %d bytes]", v.MIMEType, len(v.Data))
	case *sdk.AudioContent:
		return fmt.Sprintf("[audio %s, %d bytes]", v.MIMEType, len(v.Data))
	case *sdk.ResourceLink:
		return fmt.Sprintf("[resource %s]", v.URI)
	case *sdk.EmbeddedResource:
		if v.Resource != nil && v.Resource.Text != "" {
			return v.Resource.Text
		}
		if v.Resource != nil {
			return fmt.Sprintf("[resource %s, %d bytes]", v.Resource.URI, len(v.Resource.Blob))
		}
	}
	return fmt.Sprintf("[%T content]", ct)
}
