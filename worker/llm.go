package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/planmode/planmode/internal/config"
	"github.com/planmode/planmode/llm"
	"github.com/planmode/planmode/llm/offline"
	"github.com/planmode/planmode/worker/planworker"
)

// openAIBaseURL is where a key without a base URL goes.
const openAIBaseURL = "https://api.openai.com/v1"

// checkTimeout bounds the start-up check of the model endpoint.
const checkTimeout = 10 * time.Second

// model is the LLM the activities talk to.
type model struct {
	cfg     llm.Config
	offline bool
	close   func()
}

// startModel starts the offline model on loopback when l.Offline, each
// reply delayed by l.OfflineLatency, and otherwise checks that the provider answers GET /models with the key. It
// returns an error when the provider cannot be reached or refuses the key.
func startModel(ctx context.Context, l config.LLM, logger *slog.Logger) (model, error) {
	cfg := planworker.LLMConfig(l)
	if l.Offline {
		srv := offline.New(offline.WithLatency(l.OfflineLatency))
		cfg.BaseURL, cfg.APIKey, cfg.Model = srv.URL(), "", offline.DefaultModel
		cfg.Phases = nil
		logger.Info("offline model at "+srv.URL(), "latency", l.OfflineLatency)
		return model{cfg: cfg, offline: true, close: srv.Close}, nil
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = openAIBaseURL
	}
	if err := checkEndpoint(ctx, cfg.BaseURL, cfg.APIKey, logger); err != nil {
		return model{}, err
	}
	return model{cfg: cfg, close: func() {}}, nil
}

// checkEndpoint asks baseURL for its models, so that a wrong URL or key
// fails at start rather than in the first plan. A provider without the
// models endpoint (404) is only warned about.
func checkEndpoint(ctx context.Context, baseURL, apiKey string, logger *slog.Logger) error {
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	url := strings.TrimRight(baseURL, "/") + "/models"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return fmt.Errorf("llm.baseURL %q: %w", baseURL, err)
	}
	if apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+apiKey)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("cannot reach the model at %s: %w; check llm.baseURL or set llm.offline", baseURL, err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return fmt.Errorf("the model at %s refused the API key (%s); check llm.apiKey", baseURL, resp.Status)
	case resp.StatusCode == http.StatusNotFound:
		logger.Warn("the model endpoint has no GET /models; not checked", "baseURL", baseURL)
	case resp.StatusCode >= 300:
		return fmt.Errorf("the model at %s answered GET /models with %s; check llm.baseURL", baseURL, resp.Status)
	}
	return nil
}
