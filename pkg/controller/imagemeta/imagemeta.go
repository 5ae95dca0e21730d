// Package imagemeta reads what an AIM image says about itself: its com.amd.aim.* labels (legacy
// org.amd.silogen.*) and the standard org.opencontainers.image.* labels, fetched from the registry with the
// model's pull secrets or aim-apiserver's own registry credentials.
package imagemeta

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/authn/k8schain"
	k8sauthn "github.com/google/go-containerregistry/pkg/authn/kubernetes"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/kubernetes"

	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim"
	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/validation"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/mirrors"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/redact"
	"github.com/aim-apiserver/aim-apiserver/pkg/controller/state"
)

var prefixes = []string{"com.amd.aim.", "org.amd.silogen."}

// Reasons of the errors of reading an image's labels and its pull secrets: the image reference, the registries
// the controller may contact, what the registry answered, a missing pull secret.
const (
	ReasonInvalidImageReference = "InvalidImageReference"
	ReasonRegistryNotAllowed    = "RegistryNotAllowed"
	ReasonImagePullAuthFailure  = "ImagePullAuthFailure"
	ReasonImageNotFound         = "ImageNotFound"
	ReasonRegistryRateLimited   = "RegistryRateLimited"
	ReasonRegistryUnreachable   = "RegistryUnreachable"
	ReasonSecretNotFound        = "SecretNotFound"
)

// FromLabels turns image labels into metadata. Malformed recommended deployments are an error the user must
// fix in the image (or override with spec.imageMetadata).
func FromLabels(labels map[string]string) (*aimv1.ImageMetadata, error) {
	// The first non-empty value, the current prefix before the legacy one, as aim-engine's getAMDLabel reads.
	get := func(key string) string {
		for _, p := range prefixes {
			if v := labels[p+key]; v != "" {
				return v
			}
		}
		return ""
	}
	list := func(key string) []string {
		var out []string
		for _, s := range strings.Split(get(key), ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
		return out
	}
	m := &aimv1.ModelMetadata{
		CanonicalName: get("model.canonicalName"), Source: get("model.source"), Title: get("title"),
		DescriptionFull: get("description.full"), ReleaseNotes: get("release.notes"),
		Tags: list("model.tags"), Versions: list("model.versions"), Variants: list("model.variants"),
	}
	// A value that is not a boolean is passed over, as aim-engine passes it over: the model still works.
	if b, err := strconv.ParseBool(get("hfToken.required")); err == nil {
		m.HFTokenRequired = b
	}
	if v := get("model.recommendedDeployments"); v != "" {
		deps, err := parseDeployments(v)
		if err != nil {
			return nil, err
		}
		m.RecommendedDeployments = deps
	}
	oci := func(k string) string { return labels["org.opencontainers.image."+k] }
	md := &aimv1.ImageMetadata{
		Model: m,
		OCI: &aimv1.OCIMetadata{Title: oci("title"), Description: oci("description"), Licenses: oci("licenses"),
			Vendor: oci("vendor"), Authors: oci("authors"), Source: oci("source"), Documentation: oci("documentation"),
			Created: oci("created"), Revision: oci("revision"), Version: oci("version")},
	}
	if len(labels) > 0 {
		md.OriginalLabels = labels
	}
	// The status takes what the labels say only if its validation does: a value it refuses (a metric or precision
	// the API does not know, a negative gpuCount) would make every status write of the model fail, and the model
	// would say nothing. aim-engine writes them, and then fails to apply the template they describe.
	internal := &aim.ImageMetadata{}
	if err := aimv1.Convert_v1alpha1_ImageMetadata_To_aim_ImageMetadata(md, internal, nil); err != nil {
		return nil, fmt.Errorf("reading the labels: %w", err)
	}
	if errs := validation.ValidateImageMetadata(internal, field.NewPath("labels")); len(errs) > 0 {
		return nil, errs.ToAggregate()
	}
	return md, nil
}

// parseDeployments reads the JSON list of recommended deployments, tolerating the single quotes and the
// missing brackets seen in published images.
func parseDeployments(v string) ([]aimv1.RecommendedDeployment, error) {
	s := strings.ReplaceAll(v, "'", `"`)
	if !strings.HasPrefix(strings.TrimSpace(s), "[") {
		s = "[" + s + "]"
	}
	var raw []struct {
		GPUModel    string          `json:"gpuModel"`
		GPUCount    json.RawMessage `json:"gpuCount"`
		Precision   string          `json:"precision"`
		Metric      string          `json:"metric"`
		ProfileID   string          `json:"profileId"`
		Description string          `json:"description"`
	}
	if err := json.Unmarshal([]byte(s), &raw); err != nil {
		return nil, fmt.Errorf("label model.recommendedDeployments is not a JSON list of deployments: %w", err)
	}
	out := make([]aimv1.RecommendedDeployment, 0, len(raw))
	for _, r := range raw {
		// null is 0, as encoding/json reads it into aim-engine's int32; a quoted number is taken too.
		count, err := strconv.Atoi(strings.Trim(string(r.GPUCount), `"`))
		if err != nil && len(r.GPUCount) > 0 && string(r.GPUCount) != "null" {
			return nil, fmt.Errorf("label model.recommendedDeployments: gpuCount %s is not a number", r.GPUCount)
		}
		out = append(out, aimv1.RecommendedDeployment{GPUModel: r.GPUModel, GPUCount: int32(count), Precision: strings.ToLower(r.Precision),
			Metric: strings.ToLower(r.Metric), ProfileID: r.ProfileID, Description: r.Description})
	}
	return out, nil
}

// Fetcher reads image labels from registries.
type Fetcher struct {
	// Allowed lists the registry hosts the controller may contact; "*" allows any. Air-gapped clusters leave
	// it to spec.imageMetadata.
	Allowed []string
	// Mirrors say where the registry's images are read: its mirrors first (--registry-config).
	Mirrors *mirrors.Source
	// Transport, if set, carries registry requests (tests).
	Transport http.RoundTripper
}

// Labels fetches the labels of image with the credentials Keychain finds (a mirror's host has its own entry in
// them), from the registry's mirrors in order and then the registry itself. from names the mirror that
// answered; "" is the registry itself.
func (f Fetcher) Labels(ctx context.Context, image string, secrets []corev1.Secret) (labels map[string]string, from string, err error) {
	ref, err := name.ParseReference(image)
	if err != nil {
		return nil, "", state.NewError(state.InvalidSpec, ReasonInvalidImageReference, "spec.image %q: %v", image, err)
	}
	host := ref.Context().RegistryStr()
	// The mirrors are the administrator's; the registry itself only when --image-metadata-registries allows it.
	endpoints := slices.DeleteFunc(f.Mirrors.Config().Endpoints(host, mirrors.Resolve, mirrors.Pull), func(e mirrors.Endpoint) bool {
		return !e.Mirror && !f.allowed(host)
	})
	if len(endpoints) == 0 {
		return nil, "", state.NewError(state.InvalidSpec, ReasonRegistryNotAllowed,
			"aim-apiserver may not contact registry %s (--image-metadata-registries); set spec.imageMetadata or spec.discovery.extractMetadata: false", host)
	}
	keychain := Keychain(secrets)
	labels, answered, err := mirrors.Try(endpoints, func(e mirrors.Endpoint) (map[string]string, error) {
		at, err := e.Repository(ref.Context().RepositoryStr())
		if err != nil {
			return nil, err
		}
		opts := []remote.Option{remote.WithContext(ctx), remote.WithAuthFromKeychain(keychain)}
		if t := cmp.Or(f.Transport, e.Transport); t != nil {
			opts = append(opts, remote.WithTransport(t))
		}
		img, err := remote.Image(onEndpoint(ref, at), opts...)
		if err != nil {
			return nil, err
		}
		cfg, err := img.ConfigFile()
		if err != nil {
			return nil, err
		}
		return cfg.Config.Labels, nil
	})
	if err != nil {
		return nil, "", RegistryError("reading "+image, err, keychain.Values()...)
	}
	if answered.Mirror {
		from = answered.String()
	}
	return labels, from, nil
}

// allowed reports whether --image-metadata-registries lets the controller contact the registry host. Docker Hub
// is allowed by any of its names (docker.io, index.docker.io).
func (f Fetcher) allowed(host string) bool {
	return slices.ContainsFunc(f.Allowed, func(a string) bool {
		return a == "*" || mirrors.Canonical(a) == mirrors.Canonical(host) || a == strings.Split(host, ":")[0]
	})
}

// onEndpoint is ref's tag or digest in repository at, the repository of another endpoint.
func onEndpoint(ref name.Reference, at name.Repository) name.Reference {
	if d, ok := ref.(name.Digest); ok {
		return at.Digest(d.DigestStr())
	}
	return at.Tag(ref.Identifier())
}

// RegistryError sorts an error of a registry request (what says which request, for the message): refused
// credentials and missing images or repositories are for the user, rate limits and everything else are
// retried. The message says which it is and quotes at most a redacted excerpt of what the registry answered,
// with secrets (the values of the pull secrets used) removed: registries may echo the credentials they got,
// and conditions, Events and logs are readable by far more users than the pull secret. The original error is
// not wrapped, so that no log line prints it either.
func RegistryError(what string, err error, secrets ...string) error {
	excerpt := redact.Excerpt(err.Error(), redact.DefaultLimit, secrets...)
	if tried := (*mirrors.Error)(nil); errors.As(err, &tried) {
		// Every endpoint tried is named, each with an excerpt of its own, so that a long first answer does not
		// hide the others.
		parts := make([]string, len(tried.Tried))
		for i, a := range tried.Tried {
			parts[i] = a.Endpoint.String() + ": " + redact.Excerpt(a.Err.Error(), max(redact.DefaultLimit/len(tried.Tried), 96), secrets...)
		}
		excerpt = "tried " + strings.Join(parts, "; ")
	}
	var terr *transport.Error
	if errors.As(err, &terr) {
		code := fmt.Sprintf("HTTP %d %s", terr.StatusCode, http.StatusText(terr.StatusCode))
		switch terr.StatusCode {
		case http.StatusUnauthorized, http.StatusForbidden:
			return state.NewError(state.Auth, ReasonImagePullAuthFailure,
				"%s: the registry refused the credentials of the pull secrets or of aim-apiserver (%s): %s", what, code, excerpt)
		case http.StatusNotFound:
			return state.NewError(state.MissingUpstream, ReasonImageNotFound, "%s: not found in the registry (%s): %s", what, code, excerpt)
		case http.StatusTooManyRequests:
			return state.NewError(state.Infrastructure, ReasonRegistryRateLimited, "%s: the registry limits the request rate (%s): %s", what, code, excerpt)
		}
		return state.NewError(state.Infrastructure, ReasonRegistryUnreachable, "%s: the registry failed (%s): %s", what, code, excerpt)
	}
	return state.NewError(state.Infrastructure, ReasonRegistryUnreachable, "%s: the registry cannot be reached: %s", what, excerpt)
}

// SecretRecheck is how often an object waiting for a missing pull secret looks for it again: PullSecrets
// reads secrets one by one, and they are not watched.
const SecretRecheck = 30 * time.Second

// MissingImageRecheckMax bounds the wait between two looks for an image the registry does not have.
const MissingImageRecheckMax = 10 * time.Minute

// Recheck is when an object whose image metadata failed with err looks again, failing since since (the
// condition's lastTransitionTime), or 0 when an event or the backoff of errors brings it back: a missing pull
// secret every SecretRecheck (a get from the API); an image the registry does not have (it may be pushed
// later) after as long as it has been missing, from SecretRecheck up to MissingImageRecheckMax, since each
// look is a request to the registry, which Docker Hub counts against the cluster's pull limit.
func Recheck(err error, since, now time.Time) time.Duration {
	var e *state.Error
	if !errors.As(err, &e) {
		return 0
	}
	switch e.Reason {
	case ReasonSecretNotFound:
		return SecretRecheck
	case ReasonImageNotFound:
		return min(max(now.Sub(since), SecretRecheck), MissingImageRecheckMax)
	}
	return 0
}

// PullSecrets reads the named pull secrets from namespace. A missing one is MissingUpstream (SecretNotFound), as
// aim-engine's models check them before a registry is asked: secrets are not watched, so callers look again after
// a while.
func PullSecrets(ctx context.Context, kube kubernetes.Interface, namespace string, refs []corev1.LocalObjectReference) ([]corev1.Secret, error) {
	secrets, missing, err := ExistingPullSecrets(ctx, kube, namespace, refs)
	if err == nil && len(missing) > 0 {
		return nil, state.NewError(state.MissingUpstream, ReasonSecretNotFound, "pull secret %s not found", missing[0])
	}
	return secrets, err
}

// ExistingPullSecrets reads the named pull secrets that exist in namespace and names the others
// ("namespace/name"), skipped as go-containerregistry's k8schain skips them.
func ExistingPullSecrets(ctx context.Context, kube kubernetes.Interface, namespace string, refs []corev1.LocalObjectReference) ([]corev1.Secret, []string, error) {
	var secrets []corev1.Secret
	var missing []string
	for _, ref := range refs {
		s, err := kube.CoreV1().Secrets(namespace).Get(ctx, ref.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			missing = append(missing, namespace+"/"+ref.Name)
			continue
		} else if err != nil {
			return nil, nil, fmt.Errorf("reading pull secret %s/%s: %w", namespace, ref.Name, err)
		}
		secrets = append(secrets, *s)
	}
	return secrets, missing, nil
}

// Keychain resolves registry credentials as aim-engine's keychain (go-containerregistry's k8schain) does: first
// from the pull secrets, then from aim-apiserver's own environment, that is a docker config ($DOCKER_CONFIG) and
// the cloud identity of its pod for Google's, Amazon's (ECR) and Azure's (ACR) registries. Unlike aim-engine's,
// the environment applies also when no pull secret is named (docs/compatibility.md, "Registry credentials"): a
// cluster whose nodes pull from a cloud registry by their identity needs none. One Credentials serves one read
// or listing: it collects the secret values it hands out.
func Keychain(secrets []corev1.Secret) *Credentials {
	c := &Credentials{secrets: SecretValues(secrets)}
	// NewNoClient reads no Kubernetes object; its context is unused.
	ambient, err := k8schain.NewNoClient(context.Background())
	if err != nil {
		ambient = authn.NewMultiKeychain() // anonymous; NewNoClient has no error to return
	}
	c.keychain = authn.NewMultiKeychain(pullSecretKeychain(secrets), remembering{recovering{ambient}, c})
	return c
}

// Credentials are the registry credentials of one read or listing (Keychain). A nil Credentials is anonymous.
type Credentials struct {
	keychain authn.Keychain
	// secrets are the values of the pull secrets; own those aim-apiserver's own credentials handed out.
	secrets []string
	mu      sync.Mutex
	own     []string
}

// Resolve implements authn.Keychain.
func (c *Credentials) Resolve(r authn.Resource) (authn.Authenticator, error) {
	return c.ResolveContext(context.Background(), r)
}

// ResolveContext implements authn.ContextKeychain: the request's context reaches a cloud's token exchange.
func (c *Credentials) ResolveContext(ctx context.Context, r authn.Resource) (authn.Authenticator, error) {
	if c == nil {
		return authn.Anonymous, nil
	}
	return authn.Resolve(ctx, c.keychain, r)
}

// Values are the secret values these credentials hold or handed out, for redact to remove wherever a registry
// echoes them: the pull secrets' from the start, aim-apiserver's own (a docker config's password, a cloud
// token) once a request used them.
func (c *Credentials) Values() []string {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return append(slices.Clone(c.secrets), c.own...)
}

func (c *Credentials) remember(a *authn.AuthConfig) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, v := range authValues(*a) {
		if !slices.Contains(c.own, v) {
			c.own = append(c.own, v)
		}
	}
}

// remembering hands out authenticators that tell the Credentials what they gave a request.
type remembering struct {
	authn.Keychain
	into *Credentials
}

func (k remembering) Resolve(r authn.Resource) (authn.Authenticator, error) {
	return k.ResolveContext(context.Background(), r)
}

func (k remembering) ResolveContext(ctx context.Context, r authn.Resource) (authn.Authenticator, error) {
	a, err := authn.Resolve(ctx, k.Keychain, r)
	if err != nil || a == authn.Anonymous {
		return a, err
	}
	return rememberedAuth{a, k.into}, nil
}

type rememberedAuth struct {
	inner authn.Authenticator
	into  *Credentials
}

func (a rememberedAuth) Authorization() (*authn.AuthConfig, error) {
	return a.AuthorizationContext(context.Background())
}

func (a rememberedAuth) AuthorizationContext(ctx context.Context) (*authn.AuthConfig, error) {
	cfg, err := authn.Authorization(ctx, a.inner)
	if err == nil && cfg != nil {
		a.into.remember(cfg)
	}
	return cfg, err
}

// recovering turns a panic of a keychain into an error. Amazon's ECR helper panics when the AWS SDK cannot load
// its configuration (an AWS_PROFILE that names no profile, a config file that does not parse): in the controller
// that would fail a reconcile with a stack instead of a message, and it would end check-registry.
type recovering struct{ authn.Keychain }

func (k recovering) Resolve(r authn.Resource) (authn.Authenticator, error) {
	return k.ResolveContext(context.Background(), r)
}

func (k recovering) ResolveContext(ctx context.Context, r authn.Resource) (a authn.Authenticator, err error) {
	defer func() {
		if p := recover(); p != nil {
			a, err = nil, fmt.Errorf("reading aim-apiserver's own credentials for %s: %v", r.RegistryStr(), p)
		}
	}()
	return authn.Resolve(ctx, k.Keychain, r)
}

// pullSecretKeychain resolves registry credentials from kubernetes.io/dockerconfigjson and
// kubernetes.io/dockercfg secrets as the kubelet does (go-containerregistry's authn/kubernetes): the longest
// matching entry wins, so an entry for "registry.example/team-a" serves that team's repositories and one for
// "registry.example" the rest. A secret whose config does not parse is left out, so that the others still
// apply; the registry's refusal then says what is missing.
func pullSecretKeychain(secrets []corev1.Secret) authn.Keychain {
	// NewFromPullSecrets reads only the secrets it is given; its context is unused.
	ctx := context.Background()
	kc, err := k8sauthn.NewFromPullSecrets(ctx, secrets)
	if err == nil {
		return kc
	}
	usable := slices.DeleteFunc(slices.Clone(secrets), func(s corev1.Secret) bool {
		_, err := k8sauthn.NewFromPullSecrets(ctx, []corev1.Secret{s})
		return err != nil
	})
	if kc, err = k8sauthn.NewFromPullSecrets(ctx, usable); err != nil {
		return authn.NewMultiKeychain() // anonymous; every secret parsed alone, so this does not happen
	}
	return kc
}

// SecretValues are the credential values of pull secrets, for redact to remove wherever a registry echoes
// them.
func SecretValues(secrets []corev1.Secret) []string {
	var out []string
	for _, a := range registryCredentials(secrets) {
		out = append(out, authValues(a)...)
	}
	return out
}

// authValues are the secret values of one set of credentials, alone and as a registry may quote them.
func authValues(a authn.AuthConfig) []string {
	out := []string{a.Password, a.Auth, a.IdentityToken, a.RegistryToken}
	if a.Username != "" && a.Password != "" {
		out = append(out, a.Username+":"+a.Password)
	}
	return slices.DeleteFunc(out, func(s string) bool { return s == "" })
}

// registryCredentials reads the credentials in the "auths" of dockerconfig secrets, for SecretValues.
func registryCredentials(secrets []corev1.Secret) []authn.AuthConfig {
	var creds []authn.AuthConfig
	for _, s := range secrets {
		var cfg struct {
			Auths map[string]authn.AuthConfig `json:"auths"`
		}
		switch s.Type {
		case corev1.SecretTypeDockerConfigJson:
			_ = json.Unmarshal(s.Data[corev1.DockerConfigJsonKey], &cfg)
		case corev1.SecretTypeDockercfg:
			_ = json.Unmarshal(s.Data[corev1.DockerConfigKey], &cfg.Auths)
		}
		for _, a := range cfg.Auths {
			if a.Auth != "" && a.Username == "" {
				if raw, err := base64.StdEncoding.DecodeString(a.Auth); err == nil {
					a.Username, a.Password, _ = strings.Cut(string(raw), ":")
				}
			}
			creds = append(creds, a)
		}
	}
	return creds
}
