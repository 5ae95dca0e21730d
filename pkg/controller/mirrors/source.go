package mirrors

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"k8s.io/klog/v2"

	"github.com/aim-apiserver/aim-apiserver/pkg/trust"
)

// Source is a configuration file that is read again when it changes: a ConfigMap's volume replaces the file
// (through a symbolic link) when the ConfigMap is edited, and the next registry request sees the new mirrors,
// without a restart. A change that does not parse keeps the configuration in use and is logged once.
type Source struct {
	path string
	// direct is the transport of every Config's endpoints without TLS settings of their own: one, so that
	// connections are reused across reloads, which trusts the roots of the moment.
	direct *trust.Transport

	mu      sync.Mutex
	seen    os.FileInfo
	current *Config
}

// changed reports whether the file was replaced (a ConfigMap volume's update is a new file: another inode,
// whatever its size and time) or written in place.
func changed(seen, now os.FileInfo) bool {
	return seen == nil || !os.SameFile(seen, now) || seen.Size() != now.Size() || !seen.ModTime().Equal(now.ModTime())
}

// NewSource reads the file at path; "" is no file (no mirrors). An unreadable or invalid file is an error, so
// that the server does not start with a configuration it cannot use.
func NewSource(path string) (*Source, error) {
	direct := trust.NewTransport(nil)
	s := &Source{path: path, direct: direct, current: &Config{direct: direct}}
	if path == "" {
		return s, nil
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("--registry-config: %w", err)
	}
	cfg, err := s.load()
	if err != nil {
		return nil, fmt.Errorf("--registry-config %s: %w", path, err)
	}
	s.seen, s.current = st, cfg
	return s, nil
}

// Static is a Source of a configuration that never changes (tests, no file).
func Static(cfg *Config) *Source { return &Source{current: cfg} }

// Config is the configuration in use, read again first when the file changed. A nil Source has no mirrors.
func (s *Source) Config() *Config {
	if s == nil {
		return &Config{}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.path == "" {
		return s.current
	}
	st, err := os.Stat(s.path)
	if err != nil {
		return s.current
	}
	if !changed(s.seen, st) {
		return s.current
	}
	s.seen = st
	cfg, err := s.load()
	if err != nil {
		klog.ErrorS(err, "Registry configuration not reloaded; the previous one stays in use", "path", s.path)
		return s.current
	}
	klog.InfoS("Registry configuration reloaded", "path", s.path, "registries", cfg.describe())
	s.current = cfg
	return cfg
}

// load reads the file, its endpoints without TLS settings of their own going over the Source's transport.
func (s *Source) load() (*Config, error) {
	data, err := os.ReadFile(s.path)
	if err != nil {
		return nil, err
	}
	cfg, err := Parse(data)
	if err != nil {
		return nil, err
	}
	cfg.direct = s.direct
	return cfg, nil
}

func (c *Config) describe() string {
	var out []string
	for host, r := range c.registries {
		var eps []string
		for _, e := range r.mirrors {
			eps = append(eps, e.String())
		}
		out = append(out, fmt.Sprintf("%s=[%s] fallback=%t", host, strings.Join(eps, " "), r.fallback))
	}
	return strings.Join(out, ", ")
}

// Attempt is one endpoint tried and what it answered.
type Attempt struct {
	Endpoint Endpoint
	Err      error
}

// Error is the failure of a request on every endpoint that was tried. It unwraps to the last endpoint's error,
// which says what kind of failure it is (usually the registry's own answer).
type Error struct {
	Tried []Attempt
}

func (e *Error) Error() string {
	var parts []string
	for _, a := range e.Tried {
		parts = append(parts, fmt.Sprintf("%s: %v", a.Endpoint, a.Err))
	}
	return "tried " + strings.Join(parts, "; ")
}

func (e *Error) Unwrap() error { return e.Tried[len(e.Tried)-1].Err }

// Try calls do with each endpoint in turn until one succeeds, and returns what it gave and the endpoint that
// answered. When every endpoint fails, a single endpoint's error is returned as it is, several as an *Error that
// names each.
func Try[T any](endpoints []Endpoint, do func(Endpoint) (T, error)) (T, Endpoint, error) {
	var zero T
	if len(endpoints) == 0 {
		return zero, Endpoint{}, errors.New("no registry endpoint may be asked for this")
	}
	var tried []Attempt
	for _, e := range endpoints {
		out, err := do(e)
		if err == nil {
			return out, e, nil
		}
		tried = append(tried, Attempt{Endpoint: e, Err: err})
	}
	if len(tried) == 1 {
		return zero, endpoints[0], tried[0].Err
	}
	return zero, endpoints[len(endpoints)-1], &Error{Tried: tried}
}
