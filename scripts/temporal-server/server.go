package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/google/uuid"
	uiserver "github.com/temporalio/ui-server/v2/server"
	uiconfig "github.com/temporalio/ui-server/v2/server/config"
	uioptions "github.com/temporalio/ui-server/v2/server/server_options"
	"go.temporal.io/server/chasm/lib/activity"
	"go.temporal.io/server/common/authorization"
	"go.temporal.io/server/common/cluster"
	"go.temporal.io/server/common/config"
	"go.temporal.io/server/common/dynamicconfig"
	"go.temporal.io/server/common/log"
	"go.temporal.io/server/common/membership/static"
	"go.temporal.io/server/common/metrics"
	sqliteplugin "go.temporal.io/server/common/persistence/sql/sqlplugin/sqlite"
	"go.temporal.io/server/common/primitives"
	sqliteschema "go.temporal.io/server/schema/sqlite"
	"go.temporal.io/server/temporal"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// clusterName is the one cluster's name, as the CLI's dev server calls it.
const clusterName = "active"

// defaultDynamicConfig is what the CLI's dev server (v1.9.1) sets unless
// told otherwise: search attributes and Nexus endpoints visible as soon as
// they are created, persistence limits raised to match, and standalone
// activities on. Update, worker versioning (frontend.
// workerVersioningWorkflowAPIs, system.enableDeploymentVersions) and Nexus
// are on by default in server 1.32 and need no entry.
func defaultDynamicConfig() dynamicconfig.StaticClient {
	dyn := dynamicconfig.StaticClient{
		dynamicconfig.HistoryCacheHostLevelMaxSize.Key():                         8096,
		dynamicconfig.FrontendMaxNamespaceVisibilityRPSPerInstance.Key():         100,
		dynamicconfig.EnableChasm.Key():                                          true,
		activity.Enabled.Key():                                                   true,
		activity.EnableStandaloneActivityOperatorCommands.Key():                  true,
		dynamicconfig.FrontendEnableBatchOperationsForStandaloneActivities.Key(): true,
	}
	for k, v := range map[string]any{
		"system.forceSearchAttributesCacheRefreshOnRead": true,
		"system.forceNexusEndpointRefreshOnRead":         true,
		"frontend.persistenceMaxQPS":                     10000,
		"history.persistenceMaxQPS":                      45000,
	} {
		dyn[dynamicconfig.MakeKey(k)] = v
	}
	return dyn
}

// devServer is a running Temporal server and, unless headless, its Web UI.
type devServer struct {
	server   temporal.Server
	ui       *uiserver.Server
	logLevel zap.AtomicLevel
}

// stop stops the UI, then the server. While its services stop one after
// the other, the server logs errors about calls cut short between them;
// they say nothing about the work it did, so they are not logged.
func (s *devServer) stop() {
	s.logLevel.SetLevel(zapcore.FatalLevel)
	if s.ui != nil {
		s.ui.Stop()
	}
	s.server.Stop()
}

// start brings up the server, then the UI, and returns once the frontend
// accepts calls.
func start(o *options) (*devServer, error) {
	if err := checkPortFree(o.ip, o.port); err != nil {
		return nil, fmt.Errorf("frontend port: %w", err)
	}
	if !o.headless {
		// The UI server exits the process when it cannot bind, so make sure
		// it can before anything starts.
		if err := checkPortFree(o.uiIP, o.uiPort); err != nil {
			return nil, fmt.Errorf("UI port: %w", err)
		}
	}
	conf, err := serverConfig(o)
	if err != nil {
		return nil, err
	}
	logger, level := newLogger(o)
	srv, err := temporal.NewServer(serverOptions(o, conf, logger)...)
	if err != nil {
		return nil, err
	}
	if err := srv.Start(); err != nil {
		return nil, err
	}
	ds := &devServer{server: srv, logLevel: level}
	if !o.headless {
		ds.ui = uiserver.NewServer(uioptions.WithConfigProvider(&uiconfig.Config{
			Host:                o.uiIP,
			Port:                o.uiPort,
			TemporalGRPCAddress: hostPort(o.ip, o.port),
			EnableUI:            true,
			CORS:                uiconfig.CORS{CookieInsecure: true},
			HideLogs:            true,
			DisableNewsFetch:    true,
		}))
		go func() { _ = ds.ui.Start() }()
	}
	return ds, nil
}

func serverOptions(o *options, conf *config.Config, logger log.Logger) []temporal.ServerOption {
	hosts := make(map[primitives.ServiceName]static.Hosts, len(conf.Services))
	for name, svc := range conf.Services {
		hosts[primitives.ServiceName(name)] = static.SingleLocalHost(hostPort(o.ip, svc.RPC.GRPCPort))
	}
	dyn := defaultDynamicConfig()
	for k, v := range o.dynConfig {
		dyn[dynamicconfig.MakeKey(k)] = v
	}
	return []temporal.ServerOption{
		temporal.WithConfig(conf),
		temporal.ForServices(temporal.DefaultServices),
		temporal.WithStaticHosts(hosts),
		temporal.WithLogger(logger),
		temporal.WithAuthorizer(authorization.NewNoopAuthorizer()),
		temporal.WithClaimMapper(func(*config.Config) authorization.ClaimMapper {
			return authorization.NewNoopClaimMapper()
		}),
		temporal.WithDynamicConfigClient(dyn),
	}
}

// newLogger is the server's logger at --log-level, on stderr, without the
// stack traces zap adds to errors. The level can be raised at shutdown.
func newLogger(o *options) (log.Logger, zap.AtomicLevel) {
	level := zap.NewAtomicLevelAt(log.ParseZapLevel(o.logLevel))
	if o.logLevel == "never" {
		level.SetLevel(zapcore.FatalLevel + 1)
	}
	encoding := "console"
	if o.logFormat == "json" {
		encoding = "json"
	}
	enc := log.DefaultZapEncoderConfig
	enc.CallerKey, enc.EncodeCaller = zapcore.OmitKey, nil
	zl, err := zap.Config{
		Level:             level,
		Encoding:          encoding,
		EncoderConfig:     enc,
		OutputPaths:       []string{"stderr"},
		ErrorOutputPaths:  []string{"stderr"},
		DisableCaller:     true,
		DisableStacktrace: true,
	}.Build()
	if err != nil {
		return log.NewNoopLogger(), level
	}
	return log.NewZapLogger(zl), level
}

// serverConfig is a single-host cluster on SQLite: the frontend on
// --ip:--port and the other services on free ports of the same IP.
func serverConfig(o *options) (*config.Config, error) {
	httpPort := o.httpPort
	services := map[string]config.Service{}
	for _, name := range []string{"frontend", "history", "matching", "worker"} {
		svc := config.Service{RPC: config.RPC{BindOnIP: o.ip}}
		if name == "frontend" {
			if httpPort == 0 {
				var err error
				if httpPort, err = freePort(o.ip); err != nil {
					return nil, err
				}
			}
			svc.RPC.GRPCPort, svc.RPC.HTTPPort = o.port, httpPort
		} else {
			p, err := freePort(o.ip)
			if err != nil {
				return nil, err
			}
			svc.RPC.GRPCPort = p
		}
		services[name] = svc
	}
	sqlConf, err := sqliteConfig(o)
	if err != nil {
		return nil, err
	}
	conf := &config.Config{Services: services}
	conf.Global.Membership.MaxJoinDuration = 30 * time.Second
	conf.Global.Membership.BroadcastAddress = o.ip
	if o.metricsPort > 0 {
		conf.Global.Metrics = &metrics.Config{Prometheus: &metrics.PrometheusConfig{
			ListenAddress: hostPort(o.ip, o.metricsPort), HandlerPath: "/metrics",
		}}
	}
	conf.Persistence.DefaultStore = "sqlite-default"
	conf.Persistence.VisibilityStore = "sqlite-default"
	conf.Persistence.NumHistoryShards = 1
	conf.Persistence.DataStores = map[string]config.DataStore{"sqlite-default": {SQL: sqlConf}}
	conf.ClusterMetadata = &cluster.Config{
		FailoverVersionIncrement: 10,
		MasterClusterName:        clusterName,
		CurrentClusterName:       clusterName,
		ClusterInformation: map[string]cluster.ClusterInformation{clusterName: {
			Enabled:                true,
			InitialFailoverVersion: 1,
			RPCAddress:             hostPort(o.ip, o.port),
			HTTPAddress:            hostPort(o.ip, httpPort),
			ClusterID:              uuid.NewString(),
		}},
	}
	conf.DCRedirectionPolicy.Policy = "noop"
	conf.Archival.History.State = "disabled"
	conf.Archival.Visibility.State = "disabled"
	conf.NamespaceDefaults.Archival.History.State = "disabled"
	conf.NamespaceDefaults.Archival.Visibility.State = "disabled"
	conf.PublicClient.HostPort = hostPort(o.ip, o.port)
	return conf, nil
}

// sqliteConfig opens the database, creating the schema in a new file, and
// registers the namespaces with the search attributes. An in-memory
// database gets its schema from the SQLite plugin itself. In an existing
// file, namespaces already there are left as they are.
func sqliteConfig(o *options) (*config.SQL, error) {
	conf := &config.SQL{PluginName: sqliteplugin.PluginName}
	if o.dbFile == "" {
		conf.ConnectAttributes = map[string]string{"mode": "memory", "cache": "shared"}
		// A name of its own, so servers in one process do not share state.
		conf.DatabaseName = uuid.NewString()
	} else {
		conf.ConnectAttributes = map[string]string{"mode": "rwc"}
		conf.DatabaseName = o.dbFile
		if _, err := os.Stat(o.dbFile); errors.Is(err, os.ErrNotExist) {
			if _, err := os.Stat(filepath.Dir(o.dbFile)); err != nil {
				return nil, fmt.Errorf("database file's folder: %w", err)
			}
			if err := sqliteschema.SetupSchema(conf); err != nil {
				return nil, fmt.Errorf("set up the database schema: %w", err)
			}
		}
	}
	nss := make([]*sqliteschema.NamespaceConfig, 0, len(o.namespaces))
	for _, name := range o.namespaces {
		ns, err := sqliteschema.NewNamespaceConfig(clusterName, name, false, o.searchAttrs)
		if err != nil {
			return nil, fmt.Errorf("namespace %s: %w", name, err)
		}
		nss = append(nss, ns)
	}
	if err := sqliteschema.CreateNamespaces(conf, nss...); err != nil {
		return nil, fmt.Errorf("create namespaces: %w", err)
	}
	return conf, nil
}

func hostPort(ip string, port int) string {
	return net.JoinHostPort(ip, strconv.Itoa(port))
}

func checkPortFree(ip string, port int) error {
	l, err := net.Listen("tcp", hostPort(ip, port))
	if err != nil {
		return err
	}
	return l.Close()
}

// freePort returns a port on ip that is free now. A connection to it is
// closed from the listening side, which leaves the port in TIME_WAIT, so
// the kernel does not hand it out again to another bind(:0) while this
// server is starting; the server's own listener may still take it.
func freePort(ip string) (int, error) {
	l, err := net.Listen("tcp", hostPort(ip, 0))
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer c.Close()
	sc, err := l.Accept()
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	return port, sc.Close()
}
