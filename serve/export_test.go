package serve

import (
	"context"
	"iter"

	"github.com/planmode/planmode/signals"
)

// FollowForTest is what an event stream follows, for the tests of the
// fan-out.
func (s *Server) FollowForTest(ctx context.Context, plan string, after int64) iter.Seq2[signals.Event, error] {
	return s.hub.follow(ctx, plan, after)
}

// ReadForTest is how many events the shared upstream of plan has read, 0
// when it has none.
func (s *Server) ReadForTest(plan string) int64 {
	s.hub.mu.Lock()
	f := s.hub.feeds[plan]
	s.hub.mu.Unlock()
	if f == nil {
		return 0
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.total
}
