// Package config is the one configuration of the planmode worker and CLI.
//
// # Sources
//
// Values come from, lowest precedence first: the defaults, the file
// planmode.yaml in the current folder (or the file named by --config), the
// environment, and flags. An environment variable is PLANMODE_ followed by
// the key upper-cased with "." replaced by "_":
// PLANMODE_TEMPORAL_ADDRESS=127.0.0.1:7244 sets temporal.address, and
// PLANMODE_TOOLS_ALLOWCOMMANDS=go,make sets tools.allowCommands and
// PLANMODE_TOOLS_LIMITS_PROCESSES=64 sets tools.limits.processes. Every key
// is bound explicitly, so the environment works without a file. Sizes in
// bytes are plain integers (268435456, not 256MiB); zero takes a limit's
// default.
//
// # Keys
//
// The keys, their defaults and their meaning are listed once, in the
// Configuration table of README.md; TestReadmeListsEveryKey keeps that
// table and the fields of Config in step. The defaults themselves are set
// in NewViper and the Default* names.
package config

import (
	"time"

	"github.com/planmode/planmode/signals"
)

// Config is the whole configuration, as Load returns it.
type Config struct {
	Temporal  Temporal  `mapstructure:"temporal"`
	LLM       LLM       `mapstructure:"llm"`
	Workspace Workspace `mapstructure:"workspace"`
	Tools     Tools     `mapstructure:"tools"`
	Worker    Worker    `mapstructure:"worker"`
	Notify    Notify    `mapstructure:"notify"`
	Approval  Approval  `mapstructure:"approval"`
	Outputs   Outputs   `mapstructure:"outputs"`
	Log       Log       `mapstructure:"log"`
	Codec     Codec     `mapstructure:"codec"`
	Metrics   Metrics   `mapstructure:"metrics"`
	Tracing   Tracing   `mapstructure:"tracing"`
	MCP       MCP       `mapstructure:"mcp"`
	Serve     Serve     `mapstructure:"serve"`
	// File is the configuration file read, "" when none.
	File string `mapstructure:"-"`
}

// Outputs says where the worker keeps the whole of step and tool outputs
// that workflow history only holds truncated.
type Outputs struct {
	// Dir holds one folder per plan; empty keeps no full outputs. With
	// several workers it should be a volume they all mount at the same
	// path, so that every output reference can be read.
	Dir string `mapstructure:"dir"`
	// MaxPlanBytes bounds what one plan's folder holds; past it a file
	// ends with a note and later ones are not kept. Zero takes
	// DefaultOutputsMaxPlanBytes.
	MaxPlanBytes int64 `mapstructure:"maxPlanBytes"`
	// MaxBytes bounds the whole folder; past it the folders of the plans
	// written longest ago are removed first. Zero takes
	// DefaultOutputsMaxBytes.
	MaxBytes int64 `mapstructure:"maxBytes"`
	// Retention is how long a plan's folder is kept after its last write;
	// zero keeps them for ever.
	Retention time.Duration `mapstructure:"retention"`
}

// Notify configures the webhooks that tell other services a plan waits for
// them or has ended.
type Notify struct {
	// WebhookURL receives every plan's events unless the plan names its own.
	WebhookURL string `mapstructure:"webhookURL"`
	// WebhookSecret signs every body; empty sends them unsigned.
	WebhookSecret string `mapstructure:"webhookSecret"`
	// WebhookSecretFile holds the secret instead (a mounted secret file).
	WebhookSecretFile string `mapstructure:"webhookSecretFile"`
	// AllowedURLs are where a plan may send its own events (its
	// notify.webhookURL): a URL, or a prefix ending in "/". Empty allows
	// none: a plan's events then go to WebhookURL only.
	AllowedURLs []string `mapstructure:"allowedURLs"`
}

// Temporal says where the Temporal service is and how to reach it.
type Temporal struct {
	Address   string `mapstructure:"address"`
	Namespace string `mapstructure:"namespace"`
	TaskQueue string `mapstructure:"taskQueue"`
	TLS       TLS    `mapstructure:"tls"`
	// APIKey authenticates to Temporal Cloud; it turns TLS on.
	APIKey string `mapstructure:"apiKey"`
	// APIKeyFile holds the API key instead (a mounted secret file).
	APIKeyFile string `mapstructure:"apiKeyFile"`
}

// TLS holds the files of a TLS connection to Temporal. CertFile and KeyFile
// go together (mutual TLS); CAFile alone trusts a private CA.
type TLS struct {
	CertFile   string `mapstructure:"certFile"`
	KeyFile    string `mapstructure:"keyFile"`
	CAFile     string `mapstructure:"caFile"`
	ServerName string `mapstructure:"serverName"`
}

// Enabled reports whether any TLS setting is present.
func (t TLS) Enabled() bool {
	return t.CertFile != "" || t.KeyFile != "" || t.CAFile != "" || t.ServerName != ""
}

// LLM configures the model the worker talks to.
type LLM struct {
	BaseURL        string                `mapstructure:"baseURL"`
	APIKey         string                `mapstructure:"apiKey"`
	APIKeyFile     string                `mapstructure:"apiKeyFile"`
	Model          string                `mapstructure:"model"`
	Temperature    float64               `mapstructure:"temperature"`
	RequestTimeout time.Duration         `mapstructure:"requestTimeout"`
	Phases         map[string]PhaseModel `mapstructure:"phases"`
	JSONSchema     bool                  `mapstructure:"jsonSchema"`
	// Offline makes the worker start the offline model on loopback instead
	// of calling a provider.
	Offline bool `mapstructure:"offline"`
	// OfflineLatency makes the offline model wait this long before every
	// reply, so that a demo (or an operator watching a run) can follow a
	// plan step by step instead of seeing it end at once. Zero answers at
	// once.
	OfflineLatency time.Duration `mapstructure:"offlineLatency"`
	// Stream makes model calls stream their text into their activity's
	// heartbeat as it is written, for people following a plan
	// (llm.Config.Stream). Default true.
	Stream bool `mapstructure:"stream"`
	// PromptDir is a folder of prompt templates (plan_system.tmpl,
	// reflect_user.tmpl, ...) that replace the embedded ones of the same
	// names; empty keeps them all. The worker loads and checks them at
	// start (prompts.Load) and refuses to start when one is bad.
	PromptDir string `mapstructure:"promptDir"`
	// Prices are keyed by model name; they are read apart from the rest
	// because model names may hold dots, which viper splits keys on.
	Prices map[string]Price `mapstructure:"-"`
}

// PhaseModel overrides the model or temperature of one phase.
type PhaseModel struct {
	Model       string   `mapstructure:"model"`
	Temperature *float64 `mapstructure:"temperature"`
}

// Price is what a model costs, in USD per million tokens.
type Price struct {
	Input  float64 `mapstructure:"input"`
	Output float64 `mapstructure:"output"`
}

// Workspace is where tools may read and write.
type Workspace struct {
	Root string `mapstructure:"root"`
	// SnapshotRetention is how long the worker keeps a workspace snapshot
	// (a plan's rollback point) before it removes it; zero keeps them for
	// ever. Default DefaultSnapshotRetention.
	SnapshotRetention time.Duration `mapstructure:"snapshotRetention"`
	// SnapshotDir is where snapshots are kept; Load makes it absolute and
	// fills DefaultSnapshotDir when unset. It must lie outside Root.
	SnapshotDir string `mapstructure:"snapshotDir"`
	// Store is where the plans' files are kept, content-addressed, so
	// that any worker can bring a workspace to any step's files: a
	// folder (Load makes it absolute and fills DefaultStoreDir when
	// unset; outside Root), or an S3-compatible bucket URL
	// (s3://bucket/prefix?endpoint=host:port&region=…&insecure=true).
	Store string `mapstructure:"store"`
	// StoreAccessKeyFile and StoreSecretKeyFile hold an S3 store's
	// credentials; neither set reads the bucket anonymously.
	StoreAccessKeyFile string `mapstructure:"storeAccessKeyFile"`
	StoreSecretKeyFile string `mapstructure:"storeSecretKeyFile"`
	// MaxFiles bounds the entries a workspace may hold, SnapshotLimit the
	// bytes of its files' content; zero means the workspace package's
	// defaults.
	MaxFiles      int   `mapstructure:"maxFiles"`
	SnapshotLimit int64 `mapstructure:"snapshotLimit"`
}

// Tools bounds the tool activities.
type Tools struct {
	AllowCommands []string `mapstructure:"allowCommands"`
	// AllowTests lets run_tests run the workspace's test command (go test,
	// npm test, make test) even when its program is not in AllowCommands.
	// Tests run code the plan can write, so with it false and an empty
	// AllowCommands no tool runs a program.
	AllowTests     bool          `mapstructure:"allowTests"`
	CommandTimeout time.Duration `mapstructure:"commandTimeout"`
	MaxOutputBytes int           `mapstructure:"maxOutputBytes"`
	// Sandbox isolates commands from the worker: auto and bwrap run them
	// in bubblewrap and refuse them when it does not work here; none runs
	// them as the worker, with its files, environment and network.
	Sandbox string `mapstructure:"sandbox"`
	// Network gives commands the worker's network; without it they have
	// one of their own with only a loopback interface.
	Network bool `mapstructure:"network"`
	// Env declares the environment of commands: "KEY=value", or "KEY" to
	// pass the worker's value on. They get nothing else of the worker's
	// but the PATH directories they can see, LANG, and HOME (the workspace).
	Env []string `mapstructure:"env"`
	// ReadOnlyPaths are absolute host paths commands may read, besides the
	// system directories: a toolchain under /opt, a Go module cache.
	ReadOnlyPaths []string `mapstructure:"readOnlyPaths"`
	// Limits bound what one command or write may consume.
	Limits ToolLimits `mapstructure:"limits"`
}

// Worker tunes the Temporal worker; zero keeps the SDK's defaults, but
// for StickyCacheSize, which Load defaults to DefaultStickyCacheSize.
type Worker struct {
	MaxConcurrentActivities int `mapstructure:"maxConcurrentActivities"`
	// MaxConcurrentWorkflowTasks may not be 1: the SDK would then poll
	// only the sticky queue and never take a new run.
	MaxConcurrentWorkflowTasks int `mapstructure:"maxConcurrentWorkflowTasks"`
	// WorkflowPollers and ActivityPollers are how many long polls the
	// worker keeps open for workflow and activity tasks (the SDK's 2 each
	// when zero). More pollers take tasks sooner when many plans run at
	// once; each is one idle connection otherwise. WorkflowPollers may not
	// be 1, for the reason above.
	WorkflowPollers int `mapstructure:"workflowPollers"`
	ActivityPollers int `mapstructure:"activityPollers"`
	// StickyCacheSize is how many runs the worker keeps in memory between
	// their workflow tasks (sticky execution), for the whole process. A
	// cached run answers its next task, a query or an update without
	// replaying its history; an evicted one is replayed when it next runs.
	// The cache is what grows with the plans a worker holds, so it is the
	// bound on the worker's memory: see DefaultStickyCacheSize.
	StickyCacheSize int `mapstructure:"stickyCacheSize"`
	// StickyTimeout is how long a run's next workflow task waits for this
	// worker, which holds the run in its cache, before any worker may take
	// it; zero keeps the SDK's 5s. Shorter moves runs off a dead worker
	// sooner at the price of more cache misses under load.
	StickyTimeout time.Duration `mapstructure:"stickyTimeout"`
	// Versioning makes the worker a version of a Worker Deployment
	// (DeploymentName, BuildID): a plan stays on the build that started
	// it and moves to the current build when it continues as new. Off, the
	// worker is unversioned and every worker takes every task.
	Versioning bool `mapstructure:"versioning"`
	// DeploymentName names the Worker Deployment; every build of the
	// same workers shares it. It may not hold "." or ":".
	DeploymentName string `mapstructure:"deploymentName"`
	// BuildID names this build within the deployment; Load fills
	// DefaultBuildID when unset.
	BuildID string `mapstructure:"buildId"`
	// Promote makes this build the deployment's current version at start
	// even when another one is; without it only a deployment with no
	// current version gets this build as current.
	Promote bool `mapstructure:"promote"`
}

// Log configures the slog logger.
type Log struct {
	Level  string    `mapstructure:"level"`
	Format LogFormat `mapstructure:"format"`
}

// LogFormat is how log lines are written.
type LogFormat string

// Log formats.
const (
	LogText LogFormat = "text"
	LogJSON LogFormat = "json"
)

// Defaults of the keys a user most often leaves out.
const (
	DefaultAddress        = "127.0.0.1:7233"
	DefaultNamespace      = "default"
	DefaultModel          = "gpt-4o-mini"
	DefaultTemperature    = 0.2
	DefaultRequestTimeout = 2 * time.Minute
	DefaultCommandTimeout = 2 * time.Minute
	DefaultMaxOutputBytes = 64 << 10
	DefaultLogLevel       = "info"
	// DefaultTaskQueue is the contract's task queue.
	DefaultTaskQueue = signals.DefaultTaskQueue
	// DefaultSandbox runs commands in bubblewrap when it works here and
	// refuses them otherwise.
	DefaultSandbox = "auto"
	// DefaultStickyCacheSize bounds the runs a worker keeps cached. A
	// cached plan costs about 0.2 MB (its state, its coroutines and the
	// SDK's bookkeeping; docs/benchmarks.md measures it), so 2,000 plans
	// hold about 400 MB, which fits a worker given 512 MiB to 1 GiB. The
	// SDK's own 10,000 would let a busy worker grow to about 2 GB before it
	// evicts. Plans beyond the cache still run: each of their workflow
	// tasks replays the run's history (one continue-as-new segment) first.
	DefaultStickyCacheSize = 2000
)

// DefaultAllowCommands are the commands tools may run unless configured.
func DefaultAllowCommands() []string {
	return []string{"go", "make", "npm", "ls", "cat", "echo", "git"}
}

// SandboxModes are the values tools.sandbox takes: the tools package's
// SandboxModes (a test keeps them equal), spelt here so that the CLI need
// not import the tools.
var SandboxModes = []string{"auto", "bwrap", "none"}

// Phases lists the LLM phases llm.phases may override. They are the
// activities package's Phase* names (a worker test keeps them equal); they
// are spelt here so that the CLI need not import the activities.
var Phases = []string{"clarify", "plan", "execute", "agent", "reflect", "summarize"}
