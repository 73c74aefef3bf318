// Package secretfile reads a secret (an API key, a token, a password)
// from a file, as compose and Kubernetes mount them: the one reader behind
// the configuration's …File keys, the MCP servers' envFiles and
// headersFiles, and an S3 store's key files.
//
// The rules, the same for every caller:
//
//   - The file holds the secret and nothing else; surrounding white space,
//     the trailing newline an editor or echo leaves above all, is dropped.
//   - A file that holds nothing but white space is an error (ErrEmpty). A
//     caller for which an empty file means "no secret" says so by testing
//     for ErrEmpty.
//   - The file may be at most MaxBytes: a secret is a line, not a document.
//   - Symbolic links are followed (Kubernetes mounts each key of a Secret
//     as a link into a ..data folder), but what they lead to must be a
//     regular file: a folder, a named pipe or a device is refused without
//     being read, so that a pipe cannot hold the reader up.
//   - The file's permissions are not checked: a container's user often
//     reads a mounted secret through its "other" bits.
//
// Errors name the path and never quote the content.
package secretfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
)

// MaxBytes bounds a secret file.
const MaxBytes = 64 << 10

// ErrEmpty is wrapped by Read's error for a file that holds only white
// space: "secret file /run/secrets/llm_api_key is empty".
var ErrEmpty = errors.New("is empty")

// Read returns the content of the file at path without surrounding white
// space. It fails, naming path, when the file is missing or unreadable, is
// not a regular file, is larger than MaxBytes, or holds only white space
// (ErrEmpty).
func Read(path string) (string, error) {
	// O_NONBLOCK: opening a named pipe does not wait for a writer; it is
	// refused below. It changes nothing for a regular file.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return "", err
	}
	if !info.Mode().IsRegular() {
		return "", fmt.Errorf("secret file %s is not a regular file", path)
	}
	if info.Size() > MaxBytes {
		return "", tooLarge(path)
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxBytes+1))
	if err != nil {
		return "", fmt.Errorf("read secret file %s: %w", path, err)
	}
	if len(b) > MaxBytes {
		return "", tooLarge(path)
	}
	s := strings.TrimSpace(string(b))
	if s == "" {
		return "", fmt.Errorf("secret file %s %w", path, ErrEmpty)
	}
	return s, nil
}

func tooLarge(path string) error {
	return fmt.Errorf("secret file %s is larger than %d bytes", path, MaxBytes)
}
