package config

import (
	"fmt"

	"github.com/spf13/pflag"
	"github.com/spf13/viper"
)

// Flag names shared by the worker and the CLI.
const (
	FlagConfig    = "config"
	FlagAddress   = "address"
	FlagNamespace = "namespace"
	FlagTaskQueue = "task-queue"
	FlagLogLevel  = "log-level"
	FlagLogFormat = "log-format"
	FlagWorkspace = "workspace-root"
	FlagBaseURL   = "llm-base-url"
	FlagModel     = "llm-model"
	FlagOffline   = "offline"
	// FlagListen is the codec server's --listen.
	FlagListen = "listen"
)

// flagKeys maps each flag to the key it sets.
var flagKeys = map[string]string{
	FlagAddress:   KeyAddress,
	FlagNamespace: KeyNamespace,
	FlagTaskQueue: KeyTaskQueue,
	FlagLogLevel:  KeyLogLevel,
	FlagLogFormat: KeyLogFormat,
	FlagWorkspace: KeyWorkspaceRoot,
	FlagBaseURL:   KeyLLMBaseURL,
	FlagModel:     KeyLLMModel,
	FlagOffline:   KeyLLMOffline,
	FlagListen:    KeyCodecListen,
}

// AddTemporalFlags adds --config, --address, --namespace and --task-queue,
// the flags every planmode program takes. Their defaults are empty: an unset
// flag leaves the value to the file, the environment and the defaults.
func AddTemporalFlags(fs *pflag.FlagSet) {
	fs.String(FlagConfig, "", "configuration file (default ./"+FileName+" when present, or $"+ConfigEnv+")")
	fs.String(FlagAddress, "", "Temporal frontend host:port (default "+DefaultAddress+")")
	fs.String(FlagNamespace, "", "Temporal namespace (default "+DefaultNamespace+")")
	fs.String(FlagTaskQueue, "", "task queue of the PlanMode workers (default "+DefaultTaskQueue+")")
}

// AddWorkerFlags adds the worker's own flags: logging, the workspace and
// the model.
func AddWorkerFlags(fs *pflag.FlagSet) {
	fs.String(FlagLogLevel, "", "log level: debug, info, warn, error (default "+DefaultLogLevel+")")
	fs.String(FlagLogFormat, "", "log format: text or json (default text)")
	fs.String(FlagWorkspace, "", "folder the tools work in (default the current folder)")
	fs.String(FlagBaseURL, "", "OpenAI-compatible API root, e.g. https://api.openai.com/v1")
	fs.String(FlagModel, "", "default model (default "+DefaultModel+")")
	fs.Bool(FlagOffline, false, "use the built-in offline model instead of a provider")
}

// BindFlags makes every known flag of fs override its key in v when the
// flag is given: the key the flag's annotation names, else the key of
// its name.
func BindFlags(v *viper.Viper, fs *pflag.FlagSet) error {
	var err error
	fs.VisitAll(func(f *pflag.Flag) {
		key := flagKeys[f.Name]
		if k := f.Annotations[flagKeyAnnotation]; len(k) == 1 {
			key = k[0]
		}
		if key == "" || err != nil {
			return
		}
		if e := v.BindPFlag(key, f); e != nil {
			err = fmt.Errorf("bind flag --%s: %w", f.Name, e)
		}
	})
	return err
}

// FromFlags builds the configuration from fs after it has been parsed: the
// file named by --config (or the default file), the environment, then the
// flags given.
func FromFlags(fs *pflag.FlagSet) (Config, error) {
	v := NewViper()
	path := ""
	if f := fs.Lookup(FlagConfig); f != nil {
		path = f.Value.String()
	}
	if err := ReadFile(v, path); err != nil {
		return Config{}, err
	}
	if err := BindFlags(v, fs); err != nil {
		return Config{}, err
	}
	return Load(v)
}
