package config

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/go-viper/mapstructure/v2"
)

// maxTemperature is the highest sampling temperature providers accept.
const maxTemperature = 2

// logLevels are the accepted log.level values.
var logLevels = []string{"debug", "info", "warn", "error"}

// Validate reports every invalid value of c at once.
func (c Config) Validate() error {
	var errs []string
	add := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }

	if err := checkAddress(c.Temporal.Address); err != nil {
		add("%s %q: %v", KeyAddress, c.Temporal.Address, err)
	}
	if strings.TrimSpace(c.Temporal.Namespace) == "" {
		add("%s must not be empty", KeyNamespace)
	}
	if strings.TrimSpace(c.Temporal.TaskQueue) == "" {
		add("%s must not be empty", KeyTaskQueue)
	}
	if (c.Temporal.TLS.CertFile == "") != (c.Temporal.TLS.KeyFile == "") {
		add("%s and %s go together: set both or neither", KeyTLSCertFile, KeyTLSKeyFile)
	}
	errs = append(errs, c.LLM.problems()...)
	errs = append(errs, c.Tools.problems()...)
	errs = append(errs, c.Worker.problems()...)
	if c.Workspace.MaxFiles < 0 {
		errs = append(errs, fmt.Sprintf("%s must not be negative (0 takes the default)", KeyMaxFiles))
	}
	if c.Workspace.SnapshotLimit < 0 {
		errs = append(errs, fmt.Sprintf("%s must not be negative (0 takes the default)", KeySnapshotLimit))
	}
	errs = append(errs, c.Worker.versioningProblems()...)
	if u := c.Notify.WebhookURL; u != "" && !isHTTPURL(u) {
		add("%s %q is not an http(s) URL", KeyWebhookURL, u)
	}
	if err := c.Outputs.problem(); err != "" {
		errs = append(errs, err)
	}
	errs = append(errs, c.Outputs.capProblems()...)
	if err := c.Workspace.retentionProblem(); err != "" {
		errs = append(errs, err)
	}
	if err := folderProblem(KeySnapshotDir, c.Workspace.SnapshotDir); err != "" {
		errs = append(errs, err)
	}
	if !slices.Contains(logLevels, c.Log.Level) {
		add("%s %q: want one of %s", KeyLogLevel, c.Log.Level, strings.Join(logLevels, ", "))
	}
	if c.Log.Format != LogText && c.Log.Format != LogJSON {
		add("%s %q: want text or json", KeyLogFormat, c.Log.Format)
	}
	errs = append(errs, c.Codec.problems()...)
	errs = append(errs, c.Metrics.problems()...)
	errs = append(errs, c.Tracing.problems()...)
	errs = append(errs, c.MCP.problems()...)
	errs = append(errs, c.Approval.problems()...)
	errs = append(errs, c.Serve.problems()...)
	if len(errs) > 0 {
		return fmt.Errorf("invalid configuration: %s", strings.Join(errs, "; "))
	}
	return nil
}

// problems lists what is wrong with the LLM settings.
func (l LLM) problems() []string {
	var errs []string
	if l.BaseURL != "" && !isHTTPURL(l.BaseURL) {
		errs = append(errs, fmt.Sprintf("%s %q is not an http(s) URL", KeyLLMBaseURL, l.BaseURL))
	}
	if !l.Offline && strings.TrimSpace(l.Model) == "" {
		errs = append(errs, fmt.Sprintf("%s must be set when llm.offline is false", KeyLLMModel))
	}
	if l.Temperature < 0 || l.Temperature > maxTemperature {
		errs = append(errs, fmt.Sprintf("%s %g must be within 0..%d", KeyLLMTemperature, l.Temperature, maxTemperature))
	}
	if l.RequestTimeout <= 0 {
		errs = append(errs, fmt.Sprintf("%s must be positive", KeyLLMTimeout))
	}
	if l.OfflineLatency < 0 {
		errs = append(errs, fmt.Sprintf("%s must not be negative", KeyOfflineLatency))
	}
	for _, name := range sortedKeys(l.Phases) {
		if !slices.Contains(Phases, name) {
			errs = append(errs, fmt.Sprintf("llm.phases.%s: unknown phase; want one of %s", name, strings.Join(Phases, ", ")))
			continue
		}
		if t := l.Phases[name].Temperature; t != nil && (*t < 0 || *t > maxTemperature) {
			errs = append(errs, fmt.Sprintf("llm.phases.%s.temperature %g must be within 0..%d", name, *t, maxTemperature))
		}
	}
	for _, model := range sortedKeys(l.Prices) {
		if p := l.Prices[model]; p.Input < 0 || p.Output < 0 {
			errs = append(errs, fmt.Sprintf("llm.prices.%s must not be negative", model))
		}
	}
	return errs
}

// problems lists what is wrong with the worker settings. The SDK panics
// on a workflow task limit or workflow poller count of 1 (the worker would
// only ever poll its sticky queue), so those are refused here, by key.
func (w Worker) problems() []string {
	var errs []string
	counts := []struct {
		key    string
		value  int
		notOne bool
	}{
		{KeyMaxActivities, w.MaxConcurrentActivities, false},
		{KeyMaxWorkflowTask, w.MaxConcurrentWorkflowTasks, true},
		{KeyWorkflowPollers, w.WorkflowPollers, true},
		{KeyActivityPollers, w.ActivityPollers, false},
	}
	for _, c := range counts {
		switch {
		case c.value < 0:
			errs = append(errs, fmt.Sprintf("%s must not be negative", c.key))
		case c.notOne && c.value == 1:
			errs = append(errs, fmt.Sprintf("%s must not be 1 (0 keeps the SDK's default, else at least 2)", c.key))
		}
	}
	if w.StickyCacheSize < 1 {
		errs = append(errs, fmt.Sprintf("%s must be at least 1", KeyStickyCacheSize))
	}
	if w.StickyTimeout < 0 {
		errs = append(errs, fmt.Sprintf("%s must not be negative", KeyStickyTimeout))
	}
	return errs
}

// problems lists what is wrong with the tool settings.
func (t Tools) problems() []string {
	var errs []string
	for _, c := range t.AllowCommands {
		if c == "" || strings.ContainsAny(c, " \t/\\") {
			errs = append(errs, fmt.Sprintf("%s: %q is not a bare command name", KeyAllowCommands, c))
		}
	}
	if t.CommandTimeout <= 0 {
		errs = append(errs, fmt.Sprintf("%s must be positive", KeyCommandTimeout))
	}
	if t.MaxOutputBytes <= 0 {
		errs = append(errs, fmt.Sprintf("%s must be positive", KeyMaxOutputBytes))
	}
	if !slices.Contains(SandboxModes, t.Sandbox) {
		errs = append(errs, fmt.Sprintf("%s %q: want one of %s", KeySandbox, t.Sandbox, strings.Join(SandboxModes, ", ")))
	}
	for _, kv := range t.Env {
		if name, _, _ := strings.Cut(kv, "="); strings.TrimSpace(name) == "" || strings.ContainsAny(name, " \t\x00") {
			errs = append(errs, fmt.Sprintf("%s: %q is not KEY=value or KEY", KeyToolsEnv, kv))
		}
	}
	for _, p := range t.ReadOnlyPaths {
		if !filepath.IsAbs(p) || filepath.Clean(p) == "/" {
			errs = append(errs, fmt.Sprintf("%s: %q must be an absolute path other than /", KeyReadOnlyPaths, p))
		}
	}
	return append(errs, t.Limits.problems()...)
}

// problem says what is wrong with outputs.dir: a path that is not
// absolute (Load makes it absolute) or names something other than a
// folder. A folder that does not exist yet is fine: the worker creates it.
func (o Outputs) problem() string { return folderProblem(KeyOutputsDir, o.Dir) }

// folderProblem says what is wrong with the folder dir of key: a path that
// is not absolute (Load makes it absolute) or names something other than
// a folder. Empty, or a folder that does not exist yet, is fine.
func folderProblem(key, dir string) string {
	if dir == "" {
		return ""
	}
	if !filepath.IsAbs(dir) {
		return fmt.Sprintf("%s %q must be an absolute path", key, dir)
	}
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return fmt.Sprintf("%s %q is not a folder", key, dir)
	}
	return ""
}

// isHTTPURL reports whether s is an absolute http or https URL.
func isHTTPURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// checkAddress accepts host:port with a port in 1..65535.
func checkAddress(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("want host:port")
	}
	if host == "" {
		return fmt.Errorf("host is empty")
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("port must be 1..65535")
	}
	return nil
}

// decodePrices decodes llm.prices as viper holds it: a map from model name
// (dots kept) to {input, output}.
func decodePrices(raw any) (map[string]Price, error) {
	if raw == nil {
		return nil, nil
	}
	var out map[string]Price
	dec, err := mapstructure.NewDecoder(&mapstructure.DecoderConfig{
		WeaklyTypedInput: true,
		ErrorUnused:      true,
		Result:           &out,
	})
	if err != nil {
		return nil, fmt.Errorf("config: %s: %w", KeyLLMPrices, err)
	}
	if err := dec.Decode(raw); err != nil {
		return nil, fmt.Errorf("config: %s: want {model: {input: USD, output: USD}}: %w", KeyLLMPrices, err)
	}
	return out, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
