package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/planmode/planmode/plan"
)

// maxHistoryFile bounds the file --history reads. The request's own
// validation bounds the content far lower (signals.MaxHistoryBytes); this
// only keeps a wrong file from being read whole.
const maxHistoryFile = 1 << 20

// readHistory reads --history's file: a JSON array of {"role", "content"}
// messages, oldest first. Unknown fields are refused, so a misspelt key
// does not silently drop a message's content. An empty path is no history.
func readHistory(path string) ([]plan.Message, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, rejectf(fmt.Sprintf("--history: %v", err))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxHistoryFile+1))
	if err != nil {
		return nil, rejectf(fmt.Sprintf("--history %s: %v", path, err))
	}
	if len(data) > maxHistoryFile {
		return nil, rejectf(fmt.Sprintf("--history %s: the file is larger than 1 MiB", path))
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var msgs []plan.Message
	if err := dec.Decode(&msgs); err != nil {
		return nil, rejectf(fmt.Sprintf(`--history %s: want a JSON array of {"role", "content"} messages: %v`, path, err))
	}
	if dec.More() {
		return nil, rejectf(fmt.Sprintf("--history %s: unexpected data after the JSON array", path))
	}
	return msgs, nil
}
