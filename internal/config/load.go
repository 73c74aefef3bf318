package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/viper"
)

// EnvPrefix starts every environment variable of the configuration.
const EnvPrefix = "PLANMODE"

// ConfigEnv names the variable that points at a configuration file when no
// --config flag is given.
const ConfigEnv = EnvPrefix + "_CONFIG"

// FileName is the configuration file looked for in the current folder.
const FileName = "planmode.yaml"

// Keys. Viper matches keys without regard to case; they are spelt here as
// the file spells them.
const (
	KeyAddress         = "temporal.address"
	KeyNamespace       = "temporal.namespace"
	KeyTaskQueue       = "temporal.taskQueue"
	KeyTemporalAPIKey  = "temporal.apiKey"
	KeyTemporalKeyFile = "temporal.apiKeyFile"
	KeyTLSCertFile     = "temporal.tls.certFile"
	KeyTLSKeyFile      = "temporal.tls.keyFile"
	KeyTLSCAFile       = "temporal.tls.caFile"
	KeyTLSServerName   = "temporal.tls.serverName"
	KeyLLMBaseURL      = "llm.baseURL"
	KeyLLMAPIKey       = "llm.apiKey"
	KeyLLMAPIKeyFile   = "llm.apiKeyFile"
	KeyLLMModel        = "llm.model"
	KeyLLMTemperature  = "llm.temperature"
	KeyLLMTimeout      = "llm.requestTimeout"
	KeyLLMJSONSchema   = "llm.jsonSchema"
	KeyLLMOffline      = "llm.offline"
	KeyOfflineLatency  = "llm.offlineLatency"
	KeyLLMStream       = "llm.stream"
	KeyLLMPrices       = "llm.prices"
	KeyPromptDir       = "llm.promptDir"
	KeyWorkspaceRoot   = "workspace.root"
	KeyAllowCommands   = "tools.allowCommands"
	KeyAllowTests      = "tools.allowTests"
	KeyCommandTimeout  = "tools.commandTimeout"
	KeyMaxOutputBytes  = "tools.maxOutputBytes"
	KeySandbox         = "tools.sandbox"
	KeyNetwork         = "tools.network"
	KeyToolsEnv        = "tools.env"
	KeyReadOnlyPaths   = "tools.readOnlyPaths"
	KeyMaxActivities   = "worker.maxConcurrentActivities"
	KeyMaxWorkflowTask = "worker.maxConcurrentWorkflowTasks"
	KeyStickyTimeout   = "worker.stickyTimeout"
	KeyStickyCacheSize = "worker.stickyCacheSize"
	KeyWorkflowPollers = "worker.workflowPollers"
	KeyActivityPollers = "worker.activityPollers"
	KeyWebhookURL      = "notify.webhookURL"
	KeyWebhookSecret   = "notify.webhookSecret"
	KeySecretFile      = "notify.webhookSecretFile"
	KeyAllowedURLs     = "notify.allowedURLs"
	KeyOutputsDir      = "outputs.dir"
	KeyLogLevel        = "log.level"
	KeyLogFormat       = "log.format"
)

// phaseKeys returns the llm.phases.<phase>.model and .temperature keys.
func phaseKeys() []string {
	keys := make([]string, 0, 2*len(Phases))
	for _, p := range Phases {
		keys = append(keys, "llm.phases."+p+".model", "llm.phases."+p+".temperature")
	}
	return keys
}

// EnvName returns the environment variable of key:
// EnvName("temporal.address") is "PLANMODE_TEMPORAL_ADDRESS".
func EnvName(key string) string {
	return EnvPrefix + "_" + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
}

// NewViper returns a viper with the defaults set and every key bound to its
// environment variable. Read a file into it with ReadFile and bind flags
// with BindFlags before calling Load.
func NewViper() *viper.Viper {
	v := viper.New()
	v.SetDefault(KeyAddress, DefaultAddress)
	v.SetDefault(KeyNamespace, DefaultNamespace)
	v.SetDefault(KeyTaskQueue, DefaultTaskQueue)
	v.SetDefault(KeyLLMModel, DefaultModel)
	v.SetDefault(KeyLLMTemperature, DefaultTemperature)
	v.SetDefault(KeyLLMTimeout, DefaultRequestTimeout)
	v.SetDefault(KeyLLMStream, true)
	v.SetDefault(KeyAllowCommands, DefaultAllowCommands())
	v.SetDefault(KeyAllowTests, true)
	v.SetDefault(KeyCommandTimeout, DefaultCommandTimeout)
	v.SetDefault(KeyMaxOutputBytes, DefaultMaxOutputBytes)
	v.SetDefault(KeySandbox, DefaultSandbox)
	v.SetDefault(KeyLogLevel, DefaultLogLevel)
	v.SetDefault(KeyLogFormat, string(LogText))
	v.SetDefault(KeySnapshotRetention, DefaultSnapshotRetention)
	v.SetDefault(KeyStickyCacheSize, DefaultStickyCacheSize)
	for k, val := range operationsDefaults() {
		v.SetDefault(k, val)
	}
	for k, val := range limitsDefaults() {
		v.SetDefault(k, val)
	}
	for k, val := range versioningDefaults() {
		v.SetDefault(k, val)
	}
	for k, val := range approvalDefaults() {
		v.SetDefault(k, val)
	}
	for k, val := range serveDefaults() {
		v.SetDefault(k, val)
	}
	// llm.offline has no default on purpose: Load derives it when unset.

	v.SetEnvPrefix(EnvPrefix)
	v.SetEnvKeyReplacer(strings.NewReplacer(".", "_"))
	v.AutomaticEnv()
	for _, k := range envKeys() {
		// BindEnv with a key only cannot fail.
		_ = v.BindEnv(k)
	}
	return v
}

// ReadFile reads the configuration file into v: path when given, else
// $PLANMODE_CONFIG, else planmode.yaml in the current folder when there is
// one. It returns an error when a named file is missing or any file does
// not parse; no file at all is fine.
func ReadFile(v *viper.Viper, path string) error {
	if path == "" {
		path = os.Getenv(ConfigEnv)
	}
	if path == "" {
		if _, err := os.Stat(FileName); err != nil {
			return nil
		}
		path = FileName
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("config file %s: %w", path, err)
	}
	v.SetConfigFile(abs)
	if err := v.ReadInConfig(); err != nil {
		var notFound viper.ConfigFileNotFoundError
		if errors.As(err, &notFound) || errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("config file %s not found", abs)
		}
		return fmt.Errorf("config file %s: %w", abs, err)
	}
	return checkKeys(v, abs)
}

// Load decodes v into a Config, derives llm.offline and workspace.root when
// unset, and validates the result. The error lists every invalid value.
func Load(v *viper.Viper) (Config, error) {
	var c Config
	if err := v.Unmarshal(&c); err != nil {
		return c, fmt.Errorf("config: %s", decodeMessage(err))
	}
	prices, err := decodePrices(v.Get(KeyLLMPrices))
	if err != nil {
		return c, err
	}
	c.LLM.Prices = prices
	if c.Approval.Rules, err = decodeRules(v.Get(KeyApprovalRules)); err != nil {
		return c, err
	}
	c.File = v.ConfigFileUsed()
	if err := c.readSecretFiles(); err != nil {
		return c, err
	}
	if !v.IsSet(KeyLLMOffline) {
		c.LLM.Offline = c.LLM.BaseURL == "" && c.LLM.APIKey == ""
	}
	if c.Workspace.Root == "" {
		if c.Workspace.Root, err = os.Getwd(); err != nil {
			return c, fmt.Errorf("config: workspace.root: %w", err)
		}
	}
	if c.Workspace.Root, err = filepath.Abs(c.Workspace.Root); err != nil {
		return c, fmt.Errorf("config: workspace.root: %w", err)
	}
	if c.Outputs.Dir, err = outputsDir(v, c.Outputs.Dir); err != nil {
		return c, err
	}
	if c.Workspace.SnapshotDir == "" {
		c.Workspace.SnapshotDir = DefaultSnapshotDir()
	}
	if c.Workspace.SnapshotDir, err = filepath.Abs(c.Workspace.SnapshotDir); err != nil {
		return c, fmt.Errorf("config: %s: %w", KeySnapshotDir, err)
	}
	if c.Workspace.Store = strings.TrimSpace(c.Workspace.Store); c.Workspace.Store == "" {
		c.Workspace.Store = DefaultStoreDir()
	}
	if dir := c.Workspace.StoreDir(); dir != "" {
		if c.Workspace.Store, err = filepath.Abs(dir); err != nil {
			return c, fmt.Errorf("config: %s: %w", KeyStore, err)
		}
	}
	if strings.TrimSpace(c.Worker.BuildID) == "" {
		c.Worker.BuildID = DefaultBuildID()
	}
	c.MCP.normalize()
	c.Tools.Sandbox = strings.ToLower(strings.TrimSpace(c.Tools.Sandbox))
	c.Log.Level = strings.ToLower(c.Log.Level)
	c.Log.Format = LogFormat(strings.ToLower(string(c.Log.Format)))
	return c, c.Validate()
}

// decodeMessage makes a decoding error one line that names the key and
// where to set it: "llm.temperature (PLANMODE_LLM_TEMPERATURE or the file):
// cannot parse value as 'float64'...". The decoder's own text spans lines
// under a header.
func decodeMessage(err error) string {
	var parts []string
	for _, line := range strings.Split(err.Error(), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "decoding failed due to") {
			continue
		}
		if key, rest, ok := strings.Cut(strings.TrimPrefix(line, "'"), "' "); ok && !strings.Contains(key, " ") {
			line = fmt.Sprintf("%s (%s or the file): %s", key, EnvName(key), rest)
		}
		parts = append(parts, line)
	}
	if len(parts) == 0 {
		return err.Error()
	}
	return strings.Join(parts, "; ")
}

// DefaultOutputsDir is where full outputs go when outputs.dir is not set:
// planmode/outputs in the user's cache folder, or in the temporary folder
// when there is none.
func DefaultOutputsDir() string { return cacheDir("outputs") }

// DefaultSnapshotDir is where workspace snapshots go when
// workspace.snapshotDir is not set: planmode/snapshots in the user's cache
// folder, or in the temporary folder when there is none, as the workspace
// package's own default.
func DefaultSnapshotDir() string { return cacheDir("snapshots") }

// StateDir is the worker's own folder for what it keeps of the plans'
// files between activities (stat caches, steps' private copies):
// planmode/state in the user's cache folder.
func StateDir() string { return cacheDir("state") }

// BlobCacheDir is where a worker keeps the blobs it read from a remote
// store: planmode/blobs in the user's cache folder.
func BlobCacheDir() string { return cacheDir("blobs") }

// DefaultStoreDir is where the plans' files are kept when workspace.store
// is not set: planmode/store in the user's cache folder.
func DefaultStoreDir() string { return cacheDir("store") }

// StoreDir returns workspace.store when it is a folder (not a URL), else "".
func (w Workspace) StoreDir() string {
	if strings.Contains(w.Store, "://") {
		return ""
	}
	return w.Store
}

// cacheDir returns planmode/name in the user's cache folder, or in the
// temporary folder when there is none.
func cacheDir(name string) string {
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	return filepath.Join(base, "planmode", name)
}

// outputsDir settles outputs.dir: the default when no source sets it, ""
// when the file or PLANMODE_OUTPUTS_DIR sets it empty (viper ignores empty
// variables, so the variable is looked at here), else the value made
// absolute.
func outputsDir(v *viper.Viper, dir string) (string, error) {
	if val, ok := os.LookupEnv(EnvName(KeyOutputsDir)); ok && val == "" {
		return "", nil
	}
	if !v.IsSet(KeyOutputsDir) {
		return DefaultOutputsDir(), nil
	}
	if strings.TrimSpace(dir) == "" {
		return "", nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("config: %s: %w", KeyOutputsDir, err)
	}
	return abs, nil
}
