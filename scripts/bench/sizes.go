package main

import "time"

// sizes are the plan lengths and counts each section runs with.
type sizes struct {
	Quick bool `json:"quick"`
	// RatioSteps is the plan length of the orchestration ratio, run
	// RatioRuns times by each side, alternating.
	RatioSteps int `json:"ratioSteps"`
	RatioRuns  int `json:"ratioRuns"`
	// HistorySteps are the plan lengths whose history is measured;
	// LongSteps, when not zero, is the long plan's (no bare floor).
	HistorySteps []int `json:"historySteps"`
	LongSteps    int   `json:"longSteps,omitempty"`
	// CPUSteps are the plan lengths whose workflow-task CPU per step is
	// measured.
	CPUSteps []int `json:"cpuSteps"`
	// TokenSteps are the plan lengths whose prompt tokens are counted.
	TokenSteps []int `json:"tokenSteps"`
	// Concurrent are the numbers of plans started at once, each of
	// ConcurrentSteps llm steps.
	Concurrent      []int `json:"concurrent"`
	ConcurrentSteps int   `json:"concurrentSteps"`
	// FairSmall plans of FairSmallSteps steps run alone, then beside one
	// plan of FairBigSteps independent steps.
	FairSmall      int `json:"fairSmall"`
	FairSmallSteps int `json:"fairSmallSteps"`
	FairBigSteps   int `json:"fairBigSteps"`
	// Waiting is the number of plans held waiting for a selection.
	Waiting int `json:"waiting"`
	// LatencyPlans wait for a selection while LatencyBusy plans of
	// LatencyBusySteps steps execute; LatencyVariants are the worker
	// settings tried.
	LatencyPlans     int             `json:"latencyPlans"`
	LatencyBusy      int             `json:"latencyBusy"`
	LatencyBusySteps int             `json:"latencyBusySteps"`
	LatencyVariants  []workerVariant `json:"latencyVariants"`
	// WorkspaceFiles files of WorkspaceMB MB in all make the workspace
	// whose records, hydration and forks are measured.
	WorkspaceFiles int   `json:"workspaceFiles"`
	WorkspaceMB    int64 `json:"workspaceMB"`
	// A plan of FollowSteps llm steps runs FollowRuns times alone and as
	// often with Followers followers.
	FollowSteps int `json:"followSteps"`
	FollowRuns  int `json:"followRuns"`
	Followers   int `json:"followers"`
	// FollowLatency is how long a model call takes in the followers
	// section's second round (the first's answer at once).
	FollowLatency time.Duration `json:"followLatency"`
	// A plan of StreamSteps llm steps, each model call taking
	// StreamLatency, runs with its calls streaming and not.
	StreamSteps   int           `json:"streamSteps"`
	StreamLatency time.Duration `json:"streamLatency"`
}

// workerVariant is a worker configuration tried under load: config keys
// (as PLANMODE_ variables) on top of the defaults.
type workerVariant struct {
	Name     string            `json:"name"`
	Settings map[string]string `json:"settings,omitempty"`
}

// sizesFor returns the quick sizes (about a minute or two, what the test
// runs) or the full ones (aimed at 10 to 15 minutes on 2 cores).
func sizesFor(quick bool) sizes {
	pollers := workerVariant{Name: "pollers 8/8", Settings: map[string]string{
		"worker.workflowPollers": "8", "worker.activityPollers": "8"}}
	if quick {
		return sizes{Quick: true, RatioSteps: 10, RatioRuns: 1, HistorySteps: []int{10, 50}, CPUSteps: []int{10, 50}, TokenSteps: []int{10, 50},
			Concurrent: []int{20, 50}, ConcurrentSteps: 3, Waiting: 100,
			FairSmall: 5, FairSmallSteps: 3, FairBigSteps: 40,
			LatencyPlans: 50, LatencyBusy: 5, LatencyBusySteps: 10,
			LatencyVariants: []workerVariant{{Name: "default"}, pollers},
			WorkspaceFiles:  200, WorkspaceMB: 5,
			FollowSteps: 10, FollowRuns: 1, Followers: 20, FollowLatency: 50 * time.Millisecond, StreamSteps: 3, StreamLatency: 300 * time.Millisecond}
	}
	return sizes{RatioSteps: 30, RatioRuns: 9, HistorySteps: []int{10, 50, 300}, LongSteps: 1000,
		CPUSteps:   []int{10, 100, 1000},
		TokenSteps: []int{10, 50}, Concurrent: []int{100, 300, 500}, ConcurrentSteps: 5, Waiting: 1000,
		FairSmall: 20, FairSmallSteps: 5, FairBigSteps: 300,
		LatencyPlans: 300, LatencyBusy: 30, LatencyBusySteps: 40,
		LatencyVariants: []workerVariant{{Name: "default"}, pollers,
			{Name: "pollers 16/16", Settings: map[string]string{"worker.workflowPollers": "16", "worker.activityPollers": "16"}},
			{Name: "sticky cache 100", Settings: map[string]string{"worker.stickyCacheSize": "100"}}},
		WorkspaceFiles: 2000, WorkspaceMB: 50,
		FollowSteps: 30, FollowRuns: 3, Followers: 100, FollowLatency: 200 * time.Millisecond, StreamSteps: 10, StreamLatency: 1500 * time.Millisecond}
}
