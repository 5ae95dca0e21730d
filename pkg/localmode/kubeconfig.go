package localmode

import (
	"fmt"
	"os"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// ContextName is the kubeconfig context local mode writes.
const ContextName = "aim-local"

// WriteKubeconfig writes a kubeconfig for the admin user that trusts the server's serving certificate. The
// certificates are embedded so that the file keeps working when copied elsewhere.
func WriteKubeconfig(path, serverURL, servingCAFile string, pki PKI) error {
	ca, err := os.ReadFile(servingCAFile)
	if err != nil {
		return fmt.Errorf("reading serving CA: %w", err)
	}
	crt, err := os.ReadFile(pki.ClientCertFile)
	if err != nil {
		return fmt.Errorf("reading client certificate: %w", err)
	}
	key, err := os.ReadFile(pki.ClientKeyFile)
	if err != nil {
		return fmt.Errorf("reading client key: %w", err)
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[ContextName] = &clientcmdapi.Cluster{Server: serverURL, CertificateAuthorityData: ca}
	cfg.AuthInfos[AdminUser] = &clientcmdapi.AuthInfo{ClientCertificateData: crt, ClientKeyData: key}
	cfg.Contexts[ContextName] = &clientcmdapi.Context{Cluster: ContextName, AuthInfo: AdminUser, Namespace: "default"}
	cfg.CurrentContext = ContextName
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		return fmt.Errorf("writing kubeconfig %s: %w", path, err)
	}
	return os.Chmod(path, 0o600)
}
