package cli

import (
	"os"
	"os/user"
)

// caller names the person behind this CLI in the plan's version history,
// rejections and the Web UI details: "cli:<user>@<host>". Temporal does not
// tell workflow code who sent a signal or update, so every request says.
func caller() string {
	name := "unknown"
	if u, err := user.Current(); err == nil && u.Username != "" {
		name = u.Username
	}
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "localhost"
	}
	return "cli:" + name + "@" + host
}
