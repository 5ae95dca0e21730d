// Package embeddedetcd runs a single-member etcd inside the aim-apiserver process, for local mode and for
// in-process integration tests. Data persists in its directory across restarts. It listens on loopback only,
// and only with TLS: clients and its own peer listener require a certificate of the given CA, so other
// processes on the machine can neither read nor write the store.
package embeddedetcd

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"sync/atomic"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/transport"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

const (
	// startTimeout bounds how long a start (including WAL replay of a large data dir) may take.
	startTimeout = 60 * time.Second
	// maxRequestBytes is above the API server's 3 MiB body limit, so that every body the server accepts fits
	// in one etcd request and oversize bodies are refused by the server with 413, not by etcd with 500.
	maxRequestBytes = 4 * 1024 * 1024
	// watchProgressNotifyInterval is the value Kubernetes uses; it keeps the watch cache fresh.
	watchProgressNotifyInterval = 5 * time.Second
)

// Options configure an embedded etcd.
type Options struct {
	// Dir holds the data; it is created with mode 0700.
	Dir string
	// TLS: the CA that client and peer certificates must be signed by, and the certificate etcd serves (and
	// presents to itself as a peer: it must allow server and client auth for 127.0.0.1).
	CAFile, CertFile, KeyFile string
	// UnsafeNoFsync trades durability for speed; for throwaway test data only.
	UnsafeNoFsync bool
	// LogLevel of etcd's own logger; defaults to error.
	LogLevel string
}

// Server is a running embedded etcd.
type Server struct {
	etcd      *embed.Etcd
	clientURL string
	closing   *atomic.Bool
}

// Start starts etcd on loopback ports chosen by the kernel and waits until it serves.
func Start(ctx context.Context, o Options) (*Server, error) {
	if o.Dir == "" {
		return nil, errors.New("embedded etcd needs a data directory")
	}
	if o.CAFile == "" || o.CertFile == "" || o.KeyFile == "" {
		return nil, errors.New("embedded etcd needs a CA, a certificate and a key: it serves TLS only")
	}
	if err := os.MkdirAll(o.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("creating etcd data directory: %w", err)
	}
	// Concrete ports rather than :0: etcd's gRPC gateway dials the advertised address as written.
	ports, err := freeLoopbackPorts(2)
	if err != nil {
		return nil, err
	}
	clientURL := url.URL{Scheme: "https", Host: fmt.Sprintf("127.0.0.1:%d", ports[0])}
	peerURL := url.URL{Scheme: "https", Host: fmt.Sprintf("127.0.0.1:%d", ports[1])}
	tlsInfo := transport.TLSInfo{CertFile: o.CertFile, KeyFile: o.KeyFile, TrustedCAFile: o.CAFile, ClientCertAuth: true}

	cfg := embed.NewConfig()
	cfg.Name = "aim-apiserver"
	cfg.Dir = o.Dir
	cfg.ListenClientUrls = []url.URL{clientURL}
	cfg.AdvertiseClientUrls = []url.URL{clientURL}
	cfg.ListenPeerUrls = []url.URL{peerURL}
	cfg.AdvertisePeerUrls = []url.URL{peerURL}
	cfg.ClientTLSInfo, cfg.PeerTLSInfo = tlsInfo, tlsInfo
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	cfg.MaxRequestBytes = maxRequestBytes
	cfg.WatchProgressNotifyInterval = watchProgressNotifyInterval
	cfg.UnsafeNoFsync = o.UnsafeNoFsync
	closing := &atomic.Bool{}
	logger, err := newLogger(o.LogLevel, closing)
	if err != nil {
		return nil, err
	}
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(logger)

	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, fmt.Errorf("starting embedded etcd in %s: %w", o.Dir, err)
	}
	timer := time.NewTimer(startTimeout)
	defer timer.Stop()
	select {
	case <-e.Server.ReadyNotify():
	case err := <-e.Err():
		e.Close()
		return nil, fmt.Errorf("embedded etcd failed while starting: %w", err)
	case <-timer.C:
		e.Server.Stop()
		e.Close()
		return nil, fmt.Errorf("embedded etcd in %s did not become ready within %s", o.Dir, startTimeout)
	case <-ctx.Done():
		e.Close()
		return nil, ctx.Err()
	}
	if len(e.Clients) == 0 {
		e.Close()
		return nil, errors.New("embedded etcd has no client listener")
	}
	return &Server{etcd: e, clientURL: "https://" + e.Clients[0].Addr().String(), closing: closing}, nil
}

// closingMessage is what etcd logs, as an error, for each listener it closes on shutdown.
const closingMessage = "setting up serving from embedded etcd failed."

// newLogger logs at level (default error: etcd logs routine request statistics as warnings) and drops the
// listener-closed errors etcd reports while we are shutting it down.
func newLogger(level string, closing *atomic.Bool) (*zap.Logger, error) {
	if level == "" {
		level = "error"
	}
	lvl, err := zapcore.ParseLevel(level)
	if err != nil {
		return nil, fmt.Errorf("embedded etcd log level: %w", err)
	}
	cfg := zap.NewProductionConfig()
	cfg.Level = zap.NewAtomicLevelAt(lvl)
	cfg.Sampling = nil
	cfg.OutputPaths, cfg.ErrorOutputPaths = []string{"stderr"}, []string{"stderr"}
	logger, err := cfg.Build(zap.WrapCore(func(c zapcore.Core) zapcore.Core { return shutdownFilter{c, closing} }))
	if err != nil {
		return nil, fmt.Errorf("building embedded etcd logger: %w", err)
	}
	return logger, nil
}

type shutdownFilter struct {
	zapcore.Core
	closing *atomic.Bool
}

func (f shutdownFilter) Check(e zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if f.closing.Load() && e.Message == closingMessage {
		return ce
	}
	return f.Core.Check(e, ce)
}

func (f shutdownFilter) With(fields []zapcore.Field) zapcore.Core {
	return shutdownFilter{f.Core.With(fields), f.closing}
}

// freeLoopbackPorts asks the kernel for n free ports. Another process could take one before etcd binds it;
// etcd then fails to start with a clear "address already in use".
func freeLoopbackPorts(n int) ([]int, error) {
	var listeners []net.Listener
	defer func() {
		for _, l := range listeners {
			_ = l.Close()
		}
	}()
	ports := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("finding a free loopback port: %w", err)
		}
		listeners = append(listeners, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// ClientURL is the address clients connect to.
func (s *Server) ClientURL() string { return s.clientURL }

// Close stops etcd. Call it after the API server has drained, or in-flight requests and watches fail noisily.
func (s *Server) Close() {
	s.closing.Store(true)
	s.etcd.Close()
}
