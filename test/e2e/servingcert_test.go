//go:build e2e

package e2e

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestServingCertificateIsSelfManaged: the harness installs artifacts/deploy as a cluster would, and aim-apiserver
// keeps its own serving certificate (--serving-cert-secret): the Secret it made holds the certificate it serves
// and the APIService's caBundle is its ca.crt. Deleting the Secret makes the running server issue a new one and
// put it into the caBundle, and the APIService is Available again without a restart; a Secret restored from a
// backup is served again the same way.
func TestServingCertificateIsSelfManaged(t *testing.T) {
	k := admin(t)
	_, kube := adminClients(t)
	ctx := context.Background()
	h := harness(t)
	secrets := kube.CoreV1().Secrets("aim-system")

	original, err := secrets.Get(ctx, "aim-apiserver-serving-cert", metav1.GetOptions{})
	must(t, err)
	if original.Labels["app.kubernetes.io/managed-by"] != "aim-apiserver" {
		t.Errorf("labels of the serving Secret: %v", original.Labels)
	}
	if got := caBundle(t); got != string(original.Data["ca.crt"]) {
		t.Fatalf("the APIService's caBundle is not the Secret's ca.crt")
	}
	restore := func() {
		fresh, err := secrets.Get(ctx, original.Name, metav1.GetOptions{})
		if err != nil {
			t.Errorf("reading the serving Secret to restore it: %v", err)
			return
		}
		fresh.Data = original.Data
		if _, err := secrets.Update(ctx, fresh, metav1.UpdateOptions{}); err != nil {
			t.Errorf("restoring the serving Secret: %v", err)
			return
		}
		// The harness's CA file (and so the tests that reach aim-apiserver directly) holds the original.
		eventually(t, 60*time.Second, "original certificate served and trusted again", func() error {
			if caBundle(t) != string(original.Data["ca.crt"]) {
				return fmt.Errorf("caBundle not yet the original")
			}
			return available(k)
		})
	}

	must(t, secrets.Delete(ctx, original.Name, metav1.DeleteOptions{}))
	deleted := time.Now()
	var renewed *corev1.Secret
	eventually(t, 60*time.Second, "a new serving Secret, its caBundle and the APIService Available", func() error {
		s, err := secrets.Get(ctx, original.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if string(s.Data["tls.crt"]) == string(original.Data["tls.crt"]) {
			return fmt.Errorf("still the old certificate")
		}
		if caBundle(t) != string(s.Data["ca.crt"]) {
			return fmt.Errorf("caBundle is not the new Secret's ca.crt yet")
		}
		renewed = s
		return available(k)
	})
	defer restore()
	t.Logf("new certificate served and trusted %.1fs after the Secret was deleted", time.Since(deleted).Seconds())
	// The new bundle still trusts the certificate served until then, for replicas that have not reloaded yet.
	if !strings.Contains(string(renewed.Data["ca.crt"]), strings.TrimSpace(string(original.Data["tls.crt"]))) {
		t.Error("the new ca.crt does not hold the previous certificate")
	}
	// Requests through the aggregator reach the server, which was not restarted.
	k.must("get", "aimservices", "-A")
	if _, err := os.Stat(fmt.Sprintf("/proc/%d", h.PID)); err != nil {
		t.Errorf("aim-apiserver (pid %d) is gone: %v", h.PID, err)
	}
	if got := harness(t).PID; got != h.PID {
		t.Errorf("aim-apiserver restarted: pid %d, was %d", got, h.PID)
	}
}

// caBundle is the APIService's caBundle, decoded.
func caBundle(t *testing.T) string {
	t.Helper()
	b64 := admin(t).must("get", "apiservice", apiService, "-o", "jsonpath={.spec.caBundle}")
	pem, err := base64.StdEncoding.DecodeString(b64)
	must(t, err)
	return string(pem)
}

// available is nil once the APIService says Available=True.
func available(k kubectl) error {
	out, err := k.run("", "get", "apiservice", apiService, "-o", `jsonpath={.status.conditions[?(@.type=="Available")].status}`)
	if err != nil {
		return fmt.Errorf("%v: %s", err, out)
	}
	if out != "True" {
		return fmt.Errorf("Available=%s", out)
	}
	return nil
}
