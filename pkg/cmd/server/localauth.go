package server

import (
	"fmt"
	"path/filepath"

	"k8s.io/apiserver/pkg/apis/apiserver"
	"k8s.io/apiserver/pkg/authentication/authenticatorfactory"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizerfactory"
	"k8s.io/apiserver/pkg/authorization/path"
	"k8s.io/apiserver/pkg/authorization/union"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/apiserver/pkg/server/dynamiccertificates"

	"github.com/aim-apiserver/aim-apiserver/pkg/localmode"
)

// localAuth is local mode's client PKI.
type localAuth struct {
	pki localmode.PKI
}

// applyLocalAuthentication authenticates client certificates signed by the local CA and nothing else: unlike
// the delegating options, which always admit anonymous requests, an unauthenticated request gets 401.
// Authorization lets group system:masters (the generated admin) do everything, and nobody else anything.
func applyLocalAuthentication(dataDir string, c *genericapiserver.RecommendedConfig) (*localAuth, error) {
	pki, err := localmode.EnsurePKI(filepath.Join(dataDir, "pki"))
	if err != nil {
		return nil, fmt.Errorf("preparing local client PKI: %w", err)
	}
	ca, err := dynamiccertificates.NewDynamicCAContentFromFile("local-client-ca", pki.CAFile)
	if err != nil {
		return nil, fmt.Errorf("loading local client CA: %w", err)
	}
	authn, _, err := authenticatorfactory.DelegatingAuthenticatorConfig{
		Anonymous:                          &apiserver.AnonymousAuthConfig{Enabled: false},
		ClientCertificateCAContentProvider: ca,
	}.New()
	if err != nil {
		return nil, fmt.Errorf("building local authenticator: %w", err)
	}
	c.Authentication.Authenticator = authn
	// The generated admin is in system:masters; health checks are open to every authenticated client, as the
	// delegating options would leave them.
	paths, err := path.NewAuthorizer([]string{"/healthz", "/readyz", "/livez"})
	if err != nil {
		return nil, err
	}
	c.Authorization.Authorizer = union.New(authorizerfactory.NewPrivilegedGroups(user.SystemPrivilegedGroup), paths)
	if err := c.Authentication.ApplyClientCert(ca, c.SecureServing); err != nil {
		return nil, fmt.Errorf("requesting client certificates: %w", err)
	}
	return &localAuth{pki: pki}, nil
}
