package config

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/spf13/viper"
)

// knownKeys lists, lower-cased as viper reports them, every leaf key of
// Config and every prefix under which a map takes any key
// (llm.phases.<phase>., llm.prices.<model>.).
func knownKeys() (leaves map[string]bool, prefixes []string) {
	leaves = map[string]bool{}
	var walk func(t reflect.Type, prefix string)
	walk = func(t reflect.Type, prefix string) {
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("mapstructure"), ",")
			if name == "" || name == "-" {
				continue
			}
			key := prefix + strings.ToLower(name)
			switch ft := f.Type; {
			case ft.Kind() == reflect.Struct && ft.PkgPath() == reflect.TypeFor[Config]().PkgPath():
				walk(ft, key+".")
			case ft.Kind() == reflect.Map:
				prefixes = append(prefixes, key+".")
			default:
				leaves[key] = true
			}
		}
	}
	walk(reflect.TypeFor[Config](), "")
	// Prices are decoded apart (model names hold dots).
	prefixes = append(prefixes, strings.ToLower(KeyLLMPrices)+".")
	return leaves, prefixes
}

// envKeys lists every key bound to its environment variable: each leaf
// of Config and the phase overrides. Prices are read from the file only.
func envKeys() []string {
	leaves, _ := knownKeys()
	keys := make([]string, 0, len(leaves)+2*len(Phases))
	for k := range leaves {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return append(keys, phaseKeys()...)
}

// checkKeys refuses keys of the configuration file that no setting reads:
// a misspelt key (temporal.adress) would otherwise leave its setting at
// the default without a word.
func checkKeys(v *viper.Viper, file string) error {
	leaves, prefixes := knownKeys()
	var unknown []string
	for _, k := range v.AllKeys() {
		if leaves[k] || hasAnyPrefix(k, prefixes) {
			continue
		}
		unknown = append(unknown, k)
	}
	if len(unknown) == 0 {
		return nil
	}
	sort.Strings(unknown)
	return fmt.Errorf("config file %s: unknown key %s (keys are listed in README.md, Configuration)",
		file, strings.Join(unknown, ", "))
}

// hasAnyPrefix reports whether s starts with one of prefixes.
func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
