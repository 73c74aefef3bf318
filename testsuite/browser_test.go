package testsuite

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// Bounds of the browser tests: a whole browser session, and one wait for
// the Web UI to show something.
const (
	browserTimeout = 3 * time.Minute
	pageTimeout    = 30 * time.Second
)

// artifactsEnv names a folder that keeps the browser tests' screenshots
// when go test runs without -artifacts.
const artifactsEnv = "PLANMODE_TEST_ARTIFACTS"

// findChromium returns the Chromium binary: $PLANMODE_CHROMIUM, or
// chromium (Debian's package) or chromium-browser on the PATH. When none is
// found it skips t, unless CI is set: a CI run must not pass by skipping.
func findChromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("PLANMODE_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	const how = "install it (apt-get install -y chromium) or set PLANMODE_CHROMIUM"
	if os.Getenv("CI") == "" {
		t.Skip("chromium not found: " + how + "; with CI set this test fails instead")
	}
	t.Fatal("chromium not found and CI is set: " + how)
	return ""
}

// newBrowser starts a headless Chromium with a fresh profile and returns a
// tab's context, bounded by browserTimeout. The browser is closed when t
// ends. The flags keep it from reaching anything but the pages it is sent
// to.
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(findChromium(t)),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1440, 1000),
	}
	ctx, cancelTime := context.WithTimeout(context.Background(), browserTimeout)
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	tab, cancelTab := chromedp.NewContext(alloc, chromedp.WithLogf(t.Logf))
	t.Cleanup(func() {
		cancelTab()
		cancelAlloc()
		cancelTime()
	})
	return tab
}

// artifactDir is where t saves screenshots: under $PLANMODE_TEST_ARTIFACTS
// when set, else t.ArtifactDir() (kept with go test -artifacts).
func artifactDir(t *testing.T) string {
	t.Helper()
	if root := os.Getenv(artifactsEnv); root != "" {
		dir := filepath.Join(root, strings.NewReplacer("/", "_", " ", "_").Replace(t.Name()))
		require.NoError(t, os.MkdirAll(dir, 0o755))
		return dir
	}
	dir := t.ArtifactDir()
	t.Logf("screenshots go to %s, kept with go test -artifacts -outputdir <dir> or with $%s set", dir, artifactsEnv)
	return dir
}

// detailsJS returns the text of the Web UI's markdown frames, where it
// renders a run's summary, details and current details. The frames are
// served by the UI itself, so the page can read them.
const detailsJS = `(() => Array.from(document.querySelectorAll('iframe')).map(f => {
	try { return f.contentDocument.body.innerText } catch (e) { return '' }
}).join('\n'))()`

// webUI drives the Temporal Web UI in a browser tab as an operator does.
type webUI struct {
	t    *testing.T
	tab  context.Context
	base string
	ns   string
	dir  string
}

// currentDetails opens the run id by its workflow id (the UI redirects to
// its latest run), switches to the User Metadata tab and waits until the
// rendered current details hold want. It returns the frames' text.
func (u *webUI) currentDetails(id, want string) string {
	u.t.Helper()
	page := u.base + "/namespaces/" + url.PathEscape(u.ns) + "/workflows/" + url.PathEscape(id)
	require.NoError(u.t, chromedp.Do(u.tab,
		chromedp.Navigate(page),
		chromedp.Click(chromedp.CSS(`[data-testid="user-metadata-tab"]`), chromedp.NodeVisible),
	), "open %s", page)
	_, err := chromedp.Run(u.tab, chromedp.PollFunction[bool](
		`(want) => `+detailsJS+`.includes(want)`,
		chromedp.WithPollingArgs(want), chromedp.WithPollingTimeout(pageTimeout)))
	text, _ := chromedp.Run(u.tab, chromedp.Evaluate[string](detailsJS))
	require.NoError(u.t, err, "the current details never showed %q; the frames held:\n%s", want, text)
	return text
}

// screenshot saves the whole page as name.png.
func (u *webUI) screenshot(name string) {
	u.t.Helper()
	png, err := chromedp.Run(u.tab, chromedp.FullScreenshot(100))
	require.NoError(u.t, err)
	path := filepath.Join(u.dir, name+".png")
	require.NoError(u.t, os.WriteFile(path, png, 0o644))
	u.t.Logf("screenshot: %s", path)
}

// screenshotDetails opens the frame that renders the current details,
// the one whose text holds marker, on its own and saves it whole as
// name.png: in the page it scrolls inside a panel.
func (u *webUI) screenshotDetails(marker, name string) {
	u.t.Helper()
	quoted, err := json.Marshal(marker)
	require.NoError(u.t, err)
	src, err := chromedp.Run(u.tab, chromedp.Evaluate[string](fmt.Sprintf(`(() => {
		const f = Array.from(document.querySelectorAll('iframe')).find(f => {
			try { return f.contentDocument.body.innerText.includes(%s) } catch (e) { return false }
		});
		return f ? f.src : '';
	})()`, quoted)))
	require.NoError(u.t, err)
	require.NotEmpty(u.t, src, "no frame holds %q", marker)
	require.NoError(u.t, chromedp.Do(u.tab, chromedp.Navigate(src)))
	u.screenshot(name)
}
