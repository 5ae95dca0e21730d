// Package mirrors is the registry configuration of clusters that reach registries through mirrors (air-gapped
// clusters, Harbor, Artifactory or Zot proxy caches), modelled on containerd's hosts.toml: for a registry host as
// images name it, the mirror endpoints that serve its images, in order, with what each can do (pull, resolve,
// list), how to reach it (TLS, plain HTTP) and under which repository path (a proxy project's prefix). Every
// registry call of the controller asks Endpoints where to go; the registry itself comes last unless fallback is
// off. The file is read again when it changes (Source).
package mirrors

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/aim-apiserver/aim-apiserver/pkg/trust"
)

// Capability is what an endpoint may be asked for, as containerd names them; list is ours (tag and catalog
// listing, for model sources).
type Capability string

const (
	// Pull fetches manifests by digest and blobs.
	Pull Capability = "pull"
	// Resolve turns a tag into a manifest.
	Resolve Capability = "resolve"
	// List lists tags and the catalog.
	List Capability = "list"
)

// defaultCapabilities are a mirror's when it names none: what every proxy cache serves. Listing is opt-in, as
// proxies often list only what they have cached.
var defaultCapabilities = []Capability{Pull, Resolve}

// File is the configuration file (--registry-config, the chart's registryMirrors).
type File struct {
	// Registries maps a registry host as images name it (docker.io, ghcr.io, registry.example:5000) to its mirrors.
	Registries map[string]RegistryFile `json:"registries,omitempty"`
	// RewriteImages gives the pods the controller makes (InferenceService predictors, discovery, check-size and
	// download Jobs) the image reference of the first mirror that can pull it, for nodes without a mirror
	// configuration of their own. Off by default: nodes usually pull through their own mirrors.
	RewriteImages bool `json:"rewriteImages,omitempty"`
}

// RegistryFile is the configuration of one registry.
type RegistryFile struct {
	// Mirrors are tried in order.
	Mirrors []MirrorFile `json:"mirrors,omitempty"`
	// Fallback to the registry itself after the mirrors; default true. False keeps every request on the
	// mirrors, as an air-gapped cluster wants.
	Fallback *bool `json:"fallback,omitempty"`
}

// MirrorFile is one mirror endpoint.
type MirrorFile struct {
	// Endpoint is the mirror's URL, https://host[:port][/prefix], where prefix is the repository path the mirror
	// serves the registry under (Harbor's and Artifactory's proxy projects: https://harbor.example/dockerhub-proxy).
	// http:// is plain HTTP, for loopback and lab mirrors.
	Endpoint string `json:"endpoint"`
	// Capabilities are what the mirror may be asked for: pull, resolve, list. Default pull and resolve.
	Capabilities []Capability `json:"capabilities,omitempty"`
	// CAFile holds the certificate authorities that sign the mirror's certificate, added to the system's.
	CAFile string `json:"caFile,omitempty"`
	// CertFile and KeyFile are a client certificate the mirror asks for.
	CertFile string `json:"certFile,omitempty"`
	KeyFile  string `json:"keyFile,omitempty"`
	// InsecureSkipVerify accepts any certificate; for tests only.
	InsecureSkipVerify bool `json:"insecureSkipVerify,omitempty"`
}

// Endpoint is where requests for a registry's images go: a mirror, or the registry itself.
type Endpoint struct {
	// Host is host[:port].
	Host string
	// Prefix is the repository path the endpoint serves the registry's repositories under ("" for none).
	Prefix string
	// PlainHTTP endpoints are reached without TLS.
	PlainHTTP bool
	// Mirror is false for the registry itself.
	Mirror       bool
	Capabilities []Capability
	// Transport carries requests with the endpoint's TLS settings and the trusted roots of the moment (package
	// trust); nil for go-containerregistry's default transport.
	Transport http.RoundTripper
}

// String is the endpoint's URL, for messages.
func (e Endpoint) String() string {
	scheme := "https"
	if e.PlainHTTP {
		scheme = "http"
	}
	return strings.TrimSuffix(scheme+"://"+e.Host+"/"+e.Prefix, "/")
}

// Repository is repository (as the registry names it: library/nginx, amdenterpriseai/aim-qwen) on this endpoint.
func (e Endpoint) Repository(repository string) (name.Repository, error) {
	var opts []name.Option
	if e.PlainHTTP {
		opts = append(opts, name.Insecure)
	}
	// The registry is named apart: a host without a dot or port ("mirror") would otherwise be read as a
	// repository path of Docker Hub.
	reg, err := name.NewRegistry(e.Host, opts...)
	if err != nil {
		return name.Repository{}, err
	}
	return reg.Repo(e.Prefix, repository), nil
}

// Can reports whether the endpoint may be asked for every one of caps.
func (e Endpoint) Can(caps ...Capability) bool {
	for _, c := range caps {
		if !slices.Contains(e.Capabilities, c) {
			return false
		}
	}
	return true
}

// Config is a parsed configuration. The zero Config has no mirrors: every registry is reached directly.
type Config struct {
	registries    map[string]registry
	rewriteImages bool
	// direct carries the requests of endpoints without TLS settings of their own (Source's; nil: the default
	// transport).
	direct http.RoundTripper
}

type registry struct {
	mirrors  []Endpoint
	fallback bool
}

// RewriteImages reports whether pods get mirrored image references.
func (c *Config) RewriteImages() bool { return c != nil && c.rewriteImages }

// HasMirrors reports whether the registry has mirrors that may be asked for caps.
func (c *Config) HasMirrors(registryHost string, caps ...Capability) bool {
	for _, e := range c.Endpoints(registryHost, caps...) {
		if e.Mirror {
			return true
		}
	}
	return false
}

// Endpoints are where requests for the registry's images that need caps go, in order: its mirrors that may be
// asked for them, then the registry itself unless fallback is off.
func (c *Config) Endpoints(registryHost string, caps ...Capability) []Endpoint {
	var r registry
	configured := false
	if c != nil {
		r, configured = c.registries[Canonical(registryHost)]
	}
	var out []Endpoint
	for _, m := range r.mirrors {
		if m.Can(caps...) {
			out = append(out, m)
		}
	}
	if !configured || r.fallback {
		out = append(out, Endpoint{Host: registryHost, Capabilities: []Capability{Pull, Resolve, List}})
	}
	for i, e := range out {
		if e.Transport == nil && !e.PlainHTTP && c != nil {
			out[i].Transport = c.direct
		}
	}
	return out
}

// Canonical is the name a registry host is configured under: Docker Hub's several names are docker.io.
func Canonical(host string) string {
	switch host {
	case name.DefaultRegistry, "registry-1.docker.io":
		return "docker.io"
	}
	return host
}

// Parse reads a configuration; errors name the field. TLS files are read now, so that a missing CA shows when
// the file is loaded, not at the first request.
func Parse(data []byte) (*Config, error) {
	var f File
	if err := yaml.UnmarshalStrict(data, &f); err != nil {
		return nil, fmt.Errorf("registry configuration: %w", err)
	}
	cfg := &Config{registries: map[string]registry{}, rewriteImages: f.RewriteImages}
	var errs field.ErrorList
	for host, rf := range f.Registries {
		p := field.NewPath("registries").Key(host)
		if _, err := name.NewRegistry(host, name.StrictValidation); err != nil || strings.Contains(host, "/") {
			errs = append(errs, field.Invalid(p, host, "must be a registry host such as docker.io or registry.example:5000"))
			continue
		}
		canonical := Canonical(host)
		if _, dup := cfg.registries[canonical]; dup {
			errs = append(errs, field.Duplicate(p, host))
			continue
		}
		r := registry{fallback: rf.Fallback == nil || *rf.Fallback}
		for i, mf := range rf.Mirrors {
			e, merrs := endpoint(mf, p.Child("mirrors").Index(i))
			errs = append(errs, merrs...)
			r.mirrors = append(r.mirrors, e)
		}
		if len(rf.Mirrors) == 0 && !r.fallback {
			errs = append(errs, field.Invalid(p.Child("fallback"), false, "a registry without mirrors must fall back to itself"))
		}
		cfg.registries[canonical] = r
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("registry configuration: %w", errs.ToAggregate())
	}
	return cfg, nil
}

func endpoint(mf MirrorFile, p *field.Path) (Endpoint, field.ErrorList) {
	var errs field.ErrorList
	u, err := url.Parse(mf.Endpoint)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return Endpoint{}, append(errs, field.Invalid(p.Child("endpoint"), mf.Endpoint, "must be a URL https://host[:port][/prefix] (http:// for plain HTTP)"))
	}
	e := Endpoint{Host: strings.ToLower(u.Host), Prefix: strings.Trim(path.Clean("/"+u.Path), "/"), PlainHTTP: u.Scheme == "http", Mirror: true,
		Capabilities: mf.Capabilities}
	if e.Prefix != "" {
		if _, err := name.NewRepository("example.com/"+e.Prefix, name.StrictValidation); err != nil {
			errs = append(errs, field.Invalid(p.Child("endpoint"), mf.Endpoint, "the path must be a repository prefix: lower case, digits, separators"))
		}
	}
	if len(e.Capabilities) == 0 {
		e.Capabilities = defaultCapabilities
	}
	for j, c := range e.Capabilities {
		if !slices.Contains([]Capability{Pull, Resolve, List}, c) {
			errs = append(errs, field.NotSupported(p.Child("capabilities").Index(j), c, []Capability{Pull, Resolve, List}))
		}
	}
	if (mf.CertFile == "") != (mf.KeyFile == "") {
		errs = append(errs, field.Required(p.Child("keyFile"), "certFile and keyFile go together"))
	}
	if e.PlainHTTP && (mf.CAFile != "" || mf.CertFile != "" || mf.InsecureSkipVerify) {
		errs = append(errs, field.Invalid(p.Child("endpoint"), mf.Endpoint, "TLS settings need an https:// endpoint"))
	}
	if len(errs) > 0 || e.PlainHTTP || (mf.CAFile == "" && mf.CertFile == "" && !mf.InsecureSkipVerify) {
		return e, errs
	}
	// The files are read now, so that a missing CA shows when the configuration is loaded; the transport reads
	// them again when they, or the trusted roots, change.
	t := trust.NewTransport(func(roots *x509.CertPool) (*tls.Config, error) { return tlsConfig(mf, roots) }, mf.CAFile, mf.CertFile, mf.KeyFile)
	if err := t.Check(); err != nil {
		return e, append(errs, field.Invalid(p, mf.Endpoint, err.Error()))
	}
	e.Transport = t
	return e, nil
}

// tlsConfig is a mirror's TLS configuration over the trusted roots.
func tlsConfig(mf MirrorFile, roots *x509.CertPool) (*tls.Config, error) {
	c := &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: roots, InsecureSkipVerify: mf.InsecureSkipVerify} //nolint:gosec // asked for, tests only
	if mf.CAFile != "" {
		pem, err := os.ReadFile(mf.CAFile)
		if err != nil {
			return nil, fmt.Errorf("caFile: %w", err)
		}
		pool := roots.Clone()
		if !pool.AppendCertsFromPEM(bytes.TrimSpace(pem)) {
			return nil, fmt.Errorf("caFile %s holds no PEM certificate", mf.CAFile)
		}
		c.RootCAs = pool
	}
	if mf.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(mf.CertFile, mf.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("client certificate: %w", err)
		}
		c.Certificates = []tls.Certificate{cert}
	}
	return c, nil
}

// Rewrite is image as the first mirror that may pull and resolve it names it, when RewriteImages is on and the
// image's registry has such a mirror; otherwise image unchanged.
func (c *Config) Rewrite(image string) string {
	if !c.RewriteImages() {
		return image
	}
	ref, err := name.ParseReference(image)
	if err != nil {
		return image
	}
	for _, e := range c.Endpoints(ref.Context().RegistryStr(), Pull, Resolve) {
		if !e.Mirror {
			break
		}
		repo, err := e.Repository(ref.Context().RepositoryStr())
		if err != nil {
			continue
		}
		switch r := ref.(type) {
		case name.Digest:
			return repo.Name() + "@" + r.DigestStr()
		case name.Tag:
			return repo.Name() + ":" + r.TagStr()
		}
	}
	return image
}
