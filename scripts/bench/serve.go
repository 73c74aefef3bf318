package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/planmode/planmode/planclient"
	"github.com/planmode/planmode/serve"
	"github.com/planmode/planmode/signals"
)

// benchToken is the bearer token of the bench's planmode serve.
const benchToken = "bench-token-0123456789abcdef"

// planSource is serve's Source over the plan client, for the bench: the
// events only.
type planSource struct{ pc *planclient.Client }

func (s planSource) Follow(ctx context.Context, id string, after int64) iter.Seq2[signals.Event, error] {
	return s.pc.Events(ctx, id, after)
}

func (planSource) State(context.Context, string) (json.RawMessage, error) {
	return nil, errors.New("not served by the bench")
}

func (planSource) Tenant(context.Context, string) (string, error) { return "", nil }

// startServe runs a planmode serve over pc on a free loopback port and
// returns a followFunc whose followers read it as Server-Sent Events, and
// how to stop it.
func startServe(ctx context.Context, r *rig, pc *planclient.Client) (followFunc, func(), error) {
	tokens := filepath.Join(r.dir, "tokens")
	if err := os.WriteFile(tokens, []byte(benchToken+" bench\n"), 0o600); err != nil {
		return nil, nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, err
	}
	sctx, cancel := context.WithCancel(ctx)
	srv := serve.New(serve.Config{TokensFile: tokens}, planSource{pc: pc})
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(sctx, ln)
	}()
	url := "http://" + ln.Addr().String()
	follow := func(ctx context.Context, _ *planclient.Client, ids []string) (*received, func()) {
		rec := &received{at: map[string]map[int64]time.Time{}, err: map[string]error{}}
		var wg sync.WaitGroup
		for _, id := range ids {
			wg.Go(func() {
				if err := readSSE(ctx, url+"/plans/"+id+"/events", func(seq int64) {
					rec.note(id, seq, time.Now())
				}); err != nil && ctx.Err() == nil {
					rec.mu.Lock()
					rec.err[id] = err
					rec.mu.Unlock()
				}
			})
		}
		return rec, wg.Wait
	}
	return follow, func() { cancel(); <-done }, nil
}

// readSSE reads an event stream to its end, handing the seq of each
// step-completed event to got. It reads the type and id lines only, as a
// light client would: the followers run on the bench's own cores, and a
// hundred decoding every event would measure them, not the plan.
func readSSE(ctx context.Context, url string, got func(seq int64)) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+benchToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", url, resp.Status)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var id string
	for sc.Scan() {
		line := sc.Bytes()
		switch {
		case bytes.HasPrefix(line, []byte("id: ")):
			id = string(line[4:])
		case bytes.Equal(line, []byte("event: "+signals.EventStepCompleted)):
			seq, err := strconv.ParseInt(id, 10, 64)
			if err != nil {
				return fmt.Errorf("%s: id %q: %w", url, id, err)
			}
			got(seq)
		case bytes.Equal(line, []byte("event: "+signals.EventEnded)):
			return nil
		case bytes.HasPrefix(line, []byte("event: error")):
			return fmt.Errorf("%s: the stream ended with an error", url)
		}
	}
	return sc.Err()
}
