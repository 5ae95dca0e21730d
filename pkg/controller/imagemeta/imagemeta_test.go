package imagemeta

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	corev1 "k8s.io/api/core/v1"

	"github.com/aim-apiserver/aim-apiserver/pkg/controller/mirrors"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/redact"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
	"github.com/aim-apiserver/aim-apiserver/test/registrytest"
)

func TestFromLabels(t *testing.T) {
	md, err := FromLabels(map[string]string{
		"com.amd.aim.model.canonicalName":          "Qwen/Qwen3-32B",
		"org.amd.silogen.model.source":             "https://huggingface.co/Qwen/Qwen3-32B",
		"com.amd.aim.model.tags":                   " chat ,reasoning,",
		"com.amd.aim.hfToken.required":             "false",
		"com.amd.aim.model.recommendedDeployments": `{'gpuModel': 'MI300X', 'gpuCount': '2', 'precision': 'FP8', 'metric': 'Latency'}`,
		"org.opencontainers.image.licenses":        "Apache-2.0",
	})
	if err != nil {
		t.Fatal(err)
	}
	m := md.Model
	if m.CanonicalName != "Qwen/Qwen3-32B" || m.Source == "" || len(m.Tags) != 2 || m.Tags[1] != "reasoning" || md.OCI.Licenses != "Apache-2.0" {
		t.Errorf("metadata %+v %+v", m, md.OCI)
	}
	if d := m.RecommendedDeployments; len(d) != 1 || d[0].GPUCount != 2 || d[0].Precision != "fp8" || d[0].Metric != "latency" {
		t.Errorf("deployments %+v", d)
	}
	// As aim-engine reads them: an empty current label falls back to the legacy one, a hfToken.required that
	// is no boolean is passed over, a null gpuCount is 0.
	md, err = FromLabels(map[string]string{
		"com.amd.aim.model.canonicalName": "", "org.amd.silogen.model.canonicalName": "Org/Legacy",
		"com.amd.aim.hfToken.required":             "maybe",
		"com.amd.aim.model.recommendedDeployments": `[{"gpuModel": "MI300X", "gpuCount": null}]`,
	})
	if err != nil || md.Model.CanonicalName != "Org/Legacy" || md.Model.HFTokenRequired || md.Model.RecommendedDeployments[0].GPUCount != 0 {
		t.Errorf("lenient labels: %+v, %v", md, err)
	}
	for _, bad := range []map[string]string{
		{"com.amd.aim.model.recommendedDeployments": "[{gpuModel: MI300X"},
		{"com.amd.aim.model.recommendedDeployments": `[{"gpuCount": "two"}]`},
	} {
		if _, err := FromLabels(bad); err == nil {
			t.Errorf("accepted %v", bad)
		}
	}
	if md, err := FromLabels(nil); err != nil || md.Model == nil || md.OriginalLabels != nil {
		t.Errorf("an image without labels: %+v %v", md, err)
	}
	// Values a model's status cannot hold are invalid labels, named: a status write would be refused for them.
	for value, want := range map[string]string{
		`[{"gpuModel": "MI300X", "gpuCount": 1, "metric": "balanced", "precision": "fp8"}]`:  `labels.model.recommendedDeployments[0].metric: Unsupported value: "balanced"`,
		`[{"gpuModel": "MI300X", "gpuCount": 1, "metric": "latency", "precision": "mxfp4"}]`: `labels.model.recommendedDeployments[0].precision: Unsupported value: "mxfp4"`,
		`[{"gpuModel": "MI300X", "gpuCount": -1, "metric": "latency", "precision": "fp8"}]`:  `labels.model.recommendedDeployments[0].gpuCount`,
		`[{"gpuModel": "MI300X", "gpuCount": 1}, {"gpuModel": "MI325X", "metric": "Speed"}]`: `labels.model.recommendedDeployments[1].metric: Unsupported value: "speed"`,
	} {
		_, err := FromLabels(map[string]string{"com.amd.aim.model.recommendedDeployments": value})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error with %q", value, err, want)
		}
	}
}

func TestRegistryAllowlist(t *testing.T) {
	_, _, err := Fetcher{Allowed: []string{"127.0.0.1"}}.Labels(context.Background(), "docker.io/amd/aim:1", nil)
	var e *state.Error
	if !errors.As(err, &e) || e.Reason != "RegistryNotAllowed" || state.Categorize(err) != state.InvalidSpec {
		t.Errorf("not allowed: %v", err)
	}
	_, _, err = Fetcher{Allowed: []string{"*"}}.Labels(context.Background(), "UPPER CASE/not valid", nil)
	if !errors.As(err, &e) || e.Reason != "InvalidImageReference" {
		t.Errorf("bad reference: %v", err)
	}
}

func TestKeychain(t *testing.T) {
	t.Setenv("DOCKER_CONFIG", t.TempDir()) // no credentials of this machine's
	secrets := []corev1.Secret{
		{Type: corev1.SecretTypeDockerConfigJson, Data: map[string][]byte{corev1.DockerConfigJsonKey: []byte(
			`{"auths":{"https://index.docker.io/v1/":{"auth":"dXNlcjpwYXNz"},"ghcr.io":{"username":"g","password":"p"}}}`)}},
		// A broken secret does not cost the others their credentials.
		{Type: corev1.SecretTypeDockerConfigJson, Data: map[string][]byte{corev1.DockerConfigJsonKey: []byte(`{"auths":`)}},
		// Path-scoped entries (the kubelet's rule): the longest match wins.
		{Type: corev1.SecretTypeDockercfg, Data: map[string][]byte{corev1.DockerConfigKey: []byte(
			`{"registry.example":{"username":"all","password":"a"},"registry.example/team-a":{"username":"team","password":"t"}}`)}},
	}
	kc := Keychain(secrets)
	for repo, want := range map[string]authn.AuthConfig{
		"docker.io/amd/aim":             {Username: "user", Password: "pass"},
		"ghcr.io/amd/aim":               {Username: "g", Password: "p"},
		"registry.example/team-a/qwen":  {Username: "team", Password: "t"},
		"registry.example/team-b/llama": {Username: "all", Password: "a"},
	} {
		r, err := name.NewRepository(repo)
		if err != nil {
			t.Fatal(err)
		}
		a, err := kc.Resolve(r)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := a.Authorization()
		if err != nil || cfg.Username != want.Username || cfg.Password != want.Password {
			t.Errorf("%s: %+v (%v), want %s", repo, cfg, err, want.Username)
		}
	}
	if a, _ := kc.Resolve(registryResource("quay.io")); a != authn.Anonymous {
		t.Errorf("unknown registry: %v, want anonymous", a)
	}
}

// TestKeychainFallsBackToTheServersCredentials: a registry the pull secrets have no entry for is read with
// aim-apiserver's own credentials, as aim-engine's k8schain reads it: its docker config, then its cloud
// identity (here ECR's, from static AWS credentials and a fake ECR API). An entry of a pull secret wins.
func TestKeychainFallsBackToTheServersCredentials(t *testing.T) {
	dockerConfig := t.TempDir()
	if err := os.WriteFile(filepath.Join(dockerConfig, "config.json"), []byte(
		`{"auths":{"registry.example":{"auth":"`+base64.StdEncoding.EncodeToString([]byte("server:s"))+`"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("DOCKER_CONFIG", dockerConfig)
	const ecrHost = "111122223333.dkr.ecr.us-east-1.amazonaws.com"
	ecrAPI, _ := registrytest.ECRAPI(t, ecrHost, "ecr-token")
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "secret", "AWS_ENDPOINT_URL_ECR": ecrAPI,
		"AWS_ECR_DISABLE_CACHE": "true", "AWS_EC2_METADATA_DISABLED": "true",
		"AWS_CONFIG_FILE": filepath.Join(dockerConfig, "none"), "AWS_SHARED_CREDENTIALS_FILE": filepath.Join(dockerConfig, "none"),
	} {
		t.Setenv(k, v)
	}
	for _, tc := range []struct {
		name    string
		secrets []corev1.Secret
		host    string
		want    authn.AuthConfig
	}{
		{"the server's docker config", nil, "registry.example", authn.AuthConfig{Username: "server", Password: "s"}},
		{"a pull secret wins", []corev1.Secret{pullSecret("registry.example", "model", "m")}, "registry.example",
			authn.AuthConfig{Username: "model", Password: "m"}},
		{"the server's cloud identity", nil, ecrHost, authn.AuthConfig{Username: "AWS", Password: "ecr-token"}},
		{"the cloud identity beside other registries' secrets", []corev1.Secret{pullSecret("registry.example", "model", "m")}, ecrHost,
			authn.AuthConfig{Username: "AWS", Password: "ecr-token"}},
		{"nobody's", nil, "quay.io", authn.AuthConfig{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := Keychain(tc.secrets).Resolve(registryResource(tc.host))
			if err != nil {
				t.Fatal(err)
			}
			got, err := authn.Authorization(context.Background(), a)
			if err != nil {
				t.Fatal(err)
			}
			if *got != tc.want {
				t.Errorf("%s: %+v, want %+v", tc.host, *got, tc.want)
			}
		})
	}
}

// TestKeychainSurvivesABrokenAWSConfig: Amazon's ECR helper panics when the AWS SDK cannot load its
// configuration; resolving an ECR host then is an error that names the registry, not a panic.
func TestKeychainSurvivesABrokenAWSConfig(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "config")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"AWS_PROFILE": "no-such-profile", "AWS_CONFIG_FILE": empty,
		"AWS_SHARED_CREDENTIALS_FILE": empty, "AWS_EC2_METADATA_DISABLED": "true", "AWS_ECR_DISABLE_CACHE": "true"} {
		t.Setenv(k, v)
	}
	const ecrHost = "111122223333.dkr.ecr.us-east-1.amazonaws.com"
	a, err := Keychain(nil).Resolve(registryResource(ecrHost))
	if err == nil || !strings.Contains(err.Error(), "own credentials for "+ecrHost) || !strings.Contains(err.Error(), "no-such-profile") {
		t.Fatalf("Resolve(%s) = %v, %v; want an error naming the registry and the profile", ecrHost, a, err)
	}
}

type registryResource string

func (r registryResource) String() string      { return string(r) }
func (r registryResource) RegistryStr() string { return string(r) }

// echoingRegistry asks for Basic credentials and then answers every request with status, quoting back the
// Authorization header and the decoded password, as a misconfigured or hostile registry might.
func echoingRegistry(t *testing.T, status int) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		if auth == "" {
			w.Header().Set("WWW-Authenticate", `Basic realm="echo"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		user, pass, _ := r.BasicAuth()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"errors":[{"code":"DENIED","message":"got %s for %s with password %s","detail":{"header":%q}}]}`,
			auth, user, pass, auth)
	}))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}

func pullSecret(host, user, pass string) corev1.Secret {
	auth := base64.StdEncoding.EncodeToString([]byte(user + ":" + pass))
	return corev1.Secret{Type: corev1.SecretTypeDockerConfigJson, Data: map[string][]byte{
		corev1.DockerConfigJsonKey: fmt.Appendf(nil, `{"auths":{%q:{"auth":%q}}}`, host, auth)}}
}

// TestRegistryErrorsQuoteNoSecret: whatever the registry answers, the error (which becomes a condition
// message, an Event and a log line) is classified and carries neither the password nor its encodings, be they a
// pull secret's or those of aim-apiserver's own docker config. The password is short, so only knowing the
// value removes it: nothing about it looks like a token.
func TestRegistryErrorsQuoteNoSecret(t *testing.T) {
	const pass = "hunter2"
	auth := base64.StdEncoding.EncodeToString([]byte("alice:" + pass))
	type registryCase struct {
		status int
		reason string
		cat    state.Category
		host   string
		own    bool // the credentials are aim-apiserver's docker config's, not a pull secret's
	}
	var cases []registryCase
	ownAuths := map[string]any{}
	for status, want := range map[int]struct {
		reason string
		cat    state.Category
	}{
		http.StatusUnauthorized:        {"ImagePullAuthFailure", state.Auth},
		http.StatusForbidden:           {"ImagePullAuthFailure", state.Auth},
		http.StatusNotFound:            {"ImageNotFound", state.MissingUpstream},
		http.StatusTooManyRequests:     {"RegistryRateLimited", state.Infrastructure},
		http.StatusInternalServerError: {"RegistryUnreachable", state.Infrastructure},
	} {
		for _, own := range []bool{false, true} {
			c := registryCase{status, want.reason, want.cat, echoingRegistry(t, status), own}
			if own {
				ownAuths[c.host] = map[string]string{"auth": auth}
			}
			cases = append(cases, c)
		}
	}
	dockerConfig := t.TempDir()
	data, err := json.Marshal(map[string]any{"auths": ownAuths})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dockerConfig, "config.json"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("DOCKER_CONFIG", dockerConfig)
	for _, c := range cases {
		// The client retries 429 and 5xx answers for seconds.
		t.Run(fmt.Sprintf("HTTP %d, own credentials %v", c.status, c.own), func(t *testing.T) {
			t.Parallel()
			var secrets []corev1.Secret
			if !c.own {
				secrets = []corev1.Secret{pullSecret(c.host, "alice", pass)}
			}
			_, _, err := Fetcher{Allowed: []string{"*"}}.Labels(context.Background(), c.host+"/amd/aim:1", secrets)
			var e *state.Error
			if !errors.As(err, &e) || e.Reason != c.reason || state.Categorize(err) != c.cat {
				t.Fatalf("got %v (%T), want reason %s", err, err, c.reason)
			}
			msg := err.Error()
			for _, leak := range []string{pass, auth} {
				if strings.Contains(msg, leak) {
					t.Errorf("message quotes a secret %q: %s", leak, msg)
				}
			}
			if !strings.Contains(msg, fmt.Sprint(c.status)) || !strings.Contains(msg, "DENIED") {
				t.Errorf("message does not say what happened: %s", msg)
			}
			if len(msg) > 2*redact.DefaultLimit+len(c.host)+100 {
				t.Errorf("message of %d bytes is not capped", len(msg))
			}
			if errors.Unwrap(e.Err) != nil {
				t.Errorf("the registry's error is wrapped, so logs would print it")
			}
		})
	}
}

func TestRegistryUnreachable(t *testing.T) {
	_, _, err := Fetcher{Allowed: []string{"*"}}.Labels(context.Background(), "127.0.0.1:1/amd/aim:1", nil)
	var e *state.Error
	if !errors.As(err, &e) || e.Reason != "RegistryUnreachable" || state.Categorize(err) != state.Infrastructure {
		t.Errorf("got %v", err)
	}
}

// mirrorWith serves an in-process registry on loopback holding repository:tag with labels, and returns its host.
func mirrorWith(t *testing.T, repository, tag string, labels map[string]string) string {
	t.Helper()
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	t.Cleanup(srv.Close)
	host := strings.TrimPrefix(srv.URL, "http://")
	registrytest.PushLabelled(t, host+"/"+repository+":"+tag, labels)
	return host
}

func mirrorConfig(t *testing.T, yaml string) *mirrors.Source {
	t.Helper()
	cfg, err := mirrors.Parse([]byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return mirrors.Static(cfg)
}

// TestLabelsFromMirrors: a docker.io image is read from its mirror (under the mirror's path prefix), the next
// mirror answers when the first is down, and when every endpoint fails the error names each one tried. Docker
// Hub itself, which --image-metadata-registries does not allow, is never asked: mirrors are the administrator's.
func TestLabelsFromMirrors(t *testing.T) {
	labels := map[string]string{"com.amd.aim.model.canonicalName": "org/model"}
	host := mirrorWith(t, "dockerhub-proxy/amdenterpriseai/aim-model", "0.8.5", labels)
	image := "docker.io/amdenterpriseai/aim-model:0.8.5"
	f := Fetcher{Allowed: []string{"127.0.0.1"}, Mirrors: mirrorConfig(t, fmt.Sprintf(`registries:
  docker.io:
    mirrors: [{endpoint: "http://127.0.0.1:1"}, {endpoint: "http://%s/dockerhub-proxy"}]`, host))}
	got, from, err := f.Labels(context.Background(), image, nil)
	if err != nil || got["com.amd.aim.model.canonicalName"] != "org/model" || from != "http://"+host+"/dockerhub-proxy" {
		t.Fatalf("labels %v from %q: %v", got, from, err)
	}
	f.Mirrors = mirrorConfig(t, `registries: {docker.io: {fallback: false, mirrors: [{endpoint: "http://127.0.0.1:1"}, {endpoint: "http://127.0.0.1:2/p"}]}}`)
	_, _, err = f.Labels(context.Background(), image, nil)
	var e *state.Error
	if !errors.As(err, &e) || e.Reason != ReasonRegistryUnreachable {
		t.Fatalf("every mirror down: %v", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "http://127.0.0.1:1:") || !strings.Contains(msg, "http://127.0.0.1:2/p:") {
		t.Errorf("the error names not every endpoint tried: %s", msg)
	}
}

// TestAllowedRegistriesByAnyName: Docker Hub is allowed as docker.io, the name users write.
func TestAllowedRegistriesByAnyName(t *testing.T) {
	for _, allowed := range []string{"docker.io", "index.docker.io", "*"} {
		if !(Fetcher{Allowed: []string{allowed}}).allowed("index.docker.io") {
			t.Errorf("%s does not allow Docker Hub", allowed)
		}
	}
	if (Fetcher{Allowed: []string{"docker.io"}}).allowed("ghcr.io") {
		t.Error("docker.io allows ghcr.io")
	}
}

// TestMirrorCredentialsAndTLS: a mirror's host has its own entry in the pull secrets, and a mirror whose
// certificate only its caFile vouches for is trusted through that file alone.
func TestMirrorCredentialsAndTLS(t *testing.T) {
	srv := httptest.NewTLSServer(registrytest.BasicAuth("mirror-user", "mirror-pass", registry.New(registry.Logger(log.New(io.Discard, "", 0)))))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "https://")
	registrytest.PushLabelled(t, host+"/hub/org/tls:1", map[string]string{"com.amd.aim.model.canonicalName": "org/tls"},
		remote.WithTransport(srv.Client().Transport), remote.WithAuth(&authn.Basic{Username: "mirror-user", Password: "mirror-pass"}))
	caFile := filepath.Join(t.TempDir(), "ca.crt")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	config := func(ca string) *mirrors.Source {
		return mirrorConfig(t, fmt.Sprintf("registries: {docker.io: {fallback: false, mirrors: [{endpoint: %q, caFile: %q}]}}", "https://"+host+"/hub", ca))
	}
	secrets := []corev1.Secret{pullSecret(host, "mirror-user", "mirror-pass")}
	f := Fetcher{Allowed: []string{"docker.io"}, Mirrors: config(caFile)}
	if labels, from, err := f.Labels(context.Background(), "docker.io/org/tls:1", secrets); err != nil || labels["com.amd.aim.model.canonicalName"] != "org/tls" {
		t.Fatalf("through the mirror with its CA and credentials: %v %q %v", labels, from, err)
	}
	var e *state.Error
	if _, _, err := f.Labels(context.Background(), "docker.io/org/tls:1", nil); !errors.As(err, &e) || e.Reason != ReasonImagePullAuthFailure {
		t.Errorf("without the mirror's credentials: %v", err)
	}
	// Without the caFile only the system's CAs are trusted, which do not vouch for the mirror.
	f.Mirrors = mirrorConfig(t, fmt.Sprintf("registries: {docker.io: {fallback: false, mirrors: [{endpoint: %q}]}}", "https://"+host+"/hub"))
	if _, _, err := f.Labels(context.Background(), "docker.io/org/tls:1", secrets); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("without the mirror's CA: %v", err)
	}
}

// TestRegistryErrorNamesEveryEndpoint: a long answer of the first mirror does not hide the others.
func TestRegistryErrorNamesEveryEndpoint(t *testing.T) {
	err := &mirrors.Error{Tried: []mirrors.Attempt{
		{Endpoint: mirrors.Endpoint{Host: "first.example", Mirror: true}, Err: errors.New(strings.Repeat("connection refused ", 40))},
		{Endpoint: mirrors.Endpoint{Host: "second.example", Prefix: "proxy", Mirror: true}, Err: errors.New("i/o timeout")},
	}}
	msg := RegistryError("reading x", err).Error()
	if !strings.Contains(msg, "https://first.example: connection refused") || !strings.Contains(msg, "https://second.example/proxy: i/o timeout") {
		t.Errorf("message %q", msg)
	}
}

// TestRegistryErrorIsTheSameOnEveryAttempt: a registry or DNS outage is quoted the same on every attempt, though
// each attempt reads from its own local port, so that the model's status is not written again on every attempt.
func TestRegistryErrorIsTheSameOnEveryAttempt(t *testing.T) {
	registry := &net.TCPAddr{IP: net.ParseIP("203.0.113.5"), Port: 443}
	dns := &net.UDPAddr{IP: net.ParseIP("10.96.0.10"), Port: 53}
	cases := []struct {
		name    string
		attempt func(localPort int) error
		// remote is the quoted remote endpoint of the socket: it says what could not be reached.
		remote string
	}{
		{name: "connection reset", remote: "read tcp ->203.0.113.5:443", attempt: func(port int) error {
			return &url.Error{Op: "Get", URL: "https://r.example/v2/", Err: &net.OpError{Op: "read", Net: "tcp",
				Source: &net.TCPAddr{IP: net.ParseIP("10.244.0.5"), Port: port}, Addr: registry, Err: syscall.ECONNRESET}}
		}},
		// As net's resolver reports a timeout: the DNSError quotes the text of the socket's error.
		{name: "DNS timeout", remote: "read udp ->10.96.0.10:53", attempt: func(port int) error {
			read := &net.OpError{Op: "read", Net: "udp", Source: &net.UDPAddr{IP: net.ParseIP("10.244.0.5"), Port: port},
				Addr: dns, Err: os.ErrDeadlineExceeded}
			return &url.Error{Op: "Get", URL: "https://r.example/v2/", Err: &net.OpError{Op: "dial", Net: "tcp",
				Err: &net.DNSError{Err: read.Error(), Name: "r.example", Server: dns.String(), IsTimeout: true}}}
		}},
		{name: "every mirror", remote: "read tcp ->203.0.113.5:443", attempt: func(port int) error {
			return &mirrors.Error{Tried: []mirrors.Attempt{
				{Endpoint: mirrors.Endpoint{Host: "m.example", Mirror: true}, Err: &net.OpError{Op: "read", Net: "tcp",
					Source: &net.TCPAddr{IP: net.ParseIP("10.244.0.5"), Port: port}, Addr: registry, Err: syscall.ECONNRESET}},
				{Endpoint: mirrors.Endpoint{Host: "r.example"}, Err: &net.OpError{Op: "read", Net: "tcp",
					Source: &net.TCPAddr{IP: net.ParseIP("10.244.0.5"), Port: port + 1}, Addr: registry, Err: syscall.ECONNRESET}},
			}}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			first := RegistryError("reading x", tc.attempt(39874)).Error()
			second := RegistryError("reading x", tc.attempt(41002)).Error()
			if first != second {
				t.Errorf("attempts quoted differently:\n%s\n%s", first, second)
			}
			if !strings.Contains(first, tc.remote) {
				t.Errorf("%q is not quoted: %s", tc.remote, first)
			}
		})
	}
}

// TestRecheck: a missing pull secret is looked for every 30 s; an image the registry does not have after as long
// as it has been missing, 30 s to 10 min, so that a model with a wrong image does not ask Docker Hub 2,880
// times a day; other errors are left to the queue's backoff.
func TestRecheck(t *testing.T) {
	now := time.Now()
	secret := state.NewError(state.MissingUpstream, ReasonSecretNotFound, "pull secret x not found")
	image := state.NewError(state.MissingUpstream, ReasonImageNotFound, "not found in the registry")
	for _, tc := range []struct {
		err   error
		since time.Duration
		want  time.Duration
	}{
		{secret, time.Hour, SecretRecheck},
		{image, 0, SecretRecheck},
		{image, 2 * time.Minute, 2 * time.Minute},
		{image, time.Hour, MissingImageRecheckMax},
		{state.NewError(state.Infrastructure, ReasonRegistryUnreachable, "down"), time.Hour, 0},
		{errors.New("plain"), time.Hour, 0},
	} {
		if got := Recheck(tc.err, now.Add(-tc.since), now); got != tc.want {
			t.Errorf("%v failing for %s: recheck after %s, want %s", tc.err, tc.since, got, tc.want)
		}
	}
}
