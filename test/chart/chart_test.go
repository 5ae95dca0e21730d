//go:build chart

// Package chart checks the Helm chart artifacts/charts/aim-apiserver against the kustomize manifests in
// artifacts/deploy, which stay the reference: rendered with values that match them, the chart must produce the
// same objects, field for field, except what only Helm adds (its labels, checksum annotations) and the bytes of
// certificates (each side makes its own). It also lints the chart in every mode, checks the certificates the
// chart generates and parses its Prometheus rules with Prometheus's own parser. It needs the tools of hack/tools
// (helm, kubectl, promrules) and openssl, no cluster: `make chart`.
package chart

import (
	"bytes"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/diff"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/aim-apiserver/aim-apiserver/pkg/controller/mirrors"
	"github.com/aim-apiserver/aim-apiserver/pkg/migrate"
)

var (
	root       = filepath.Join("..", "..")
	helmBin    = filepath.Join(root, "_output", "bin", "helm")
	kubectlBin = filepath.Join(root, "_output", "bin", "kubectl")
	// promrules (hack/tools/promrules) checks a Prometheus rule file with Prometheus's rulefmt.
	promrulesBin = filepath.Join(root, "_output", "bin", "promrules")
	chartDir     = filepath.Join(root, "artifacts", "charts", "aim-apiserver")

	// deployDir is artifacts/deploy, which the default values must render the same as.
	deployDir = filepath.Join(root, "artifacts", "deploy")
	// helmEnv keeps helm's cache, config and data out of the user's home.
	helmEnv []string
)

// The namespace and release name artifacts/deploy corresponds to.
const (
	namespace = "aim-system"
	release   = "aim-apiserver"
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	for _, f := range []string{helmBin, kubectlBin, promrulesBin} {
		if _, err := os.Stat(f); err != nil {
			fmt.Fprintf(os.Stderr, "the chart test needs the tools of hack/tools (make tools): %v\n", err)
			return 1
		}
	}
	tmp, err := os.MkdirTemp("", "aim-chart-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(tmp)
	for _, d := range []string{"cache", "config", "data"} {
		helmEnv = append(helmEnv, fmt.Sprintf("HELM_%s_HOME=%s", strings.ToUpper(d), filepath.Join(tmp, "helm-"+d)))
	}
	return m.Run()
}

// ---- rendering -----------------------------------------------------------------------------------------------

type object = map[string]any

func command(t *testing.T, bin string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), helmEnv...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err != nil {
		return stdout.String() + stderr.String(), fmt.Errorf("%s %s: %w", filepath.Base(bin), strings.Join(args, " "), err)
	}
	return stdout.String(), nil
}

// helmTemplate renders the chart as `helm install aim-apiserver -n aim-system` would, with --set/--values args.
func helmTemplate(t *testing.T, args ...string) []object {
	t.Helper()
	out, err := command(t, helmBin, append([]string{"template", release, chartDir, "--namespace", namespace}, args...)...)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return decode(t, out)
}

// helmTemplateError renders and expects helm to refuse; it returns helm's message.
func helmTemplateError(t *testing.T, args ...string) string {
	t.Helper()
	out, err := command(t, helmBin, append([]string{"template", release, chartDir, "--namespace", namespace}, args...)...)
	if err == nil {
		t.Fatalf("helm template %s rendered, want an error:\n%s", strings.Join(args, " "), out)
	}
	return out
}

func kustomize(t *testing.T, dir string) []object {
	t.Helper()
	out, err := command(t, kubectlBin, "kustomize", dir)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return decode(t, out)
}

func decode(t *testing.T, manifests string) []object {
	t.Helper()
	var objs []object
	d := utilyaml.NewYAMLOrJSONDecoder(strings.NewReader(manifests), 4096)
	for {
		var o object
		if err := d.Decode(&o); errors.Is(err, io.EOF) {
			return objs
		} else if err != nil {
			t.Fatalf("decoding rendered manifests: %v\n%s", err, manifests)
		}
		if o != nil {
			objs = append(objs, o)
		}
	}
}

func key(o object) string {
	return fmt.Sprintf("%s %s %s/%s", o["apiVersion"], o["kind"], str(o, "metadata", "namespace"), str(o, "metadata", "name"))
}

func index(objs []object) map[string]object {
	m := map[string]object{}
	for _, o := range objs {
		m[key(o)] = o
	}
	return m
}

func find(t *testing.T, objs []object, kind, name string) object {
	t.Helper()
	for _, o := range objs {
		if o["kind"] == kind && str(o, "metadata", "name") == name {
			return o
		}
	}
	t.Fatalf("no %s %s among %d objects", kind, name, len(objs))
	return nil
}

func has(objs []object, kind, name string) bool {
	for _, o := range objs {
		if o["kind"] == kind && str(o, "metadata", "name") == name {
			return true
		}
	}
	return false
}

func field(o object, path ...string) any {
	var v any = o
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}

func str(o object, path ...string) string {
	s, _ := field(o, path...).(string)
	return s
}

func mapAt(o object, path ...string) map[string]any {
	m, _ := field(o, path...).(map[string]any)
	return m
}

// containerArgs returns the args (or command) of a workload's first container.
func containerArgs(o object, list string) []string {
	containers, _ := field(o, "spec", "template", "spec", "containers").([]any)
	if len(containers) == 0 {
		return nil
	}
	return stringList(containers[0].(map[string]any)[list])
}

func volumeSecrets(o object) map[string]string {
	vols, _ := field(o, "spec", "template", "spec", "volumes").([]any)
	m := map[string]string{}
	for _, v := range vols {
		vm := v.(map[string]any)
		if s, ok := vm["secret"].(map[string]any); ok {
			m[vm["name"].(string)] = s["secretName"].(string)
		}
	}
	return m
}

// ---- normalization -------------------------------------------------------------------------------------------

// helmOnlyLabels are the labels the chart puts on its objects (and pod templates) that artifacts/deploy does not.
var helmOnlyLabels = []string{"helm.sh/chart", "app.kubernetes.io/managed-by", "app.kubernetes.io/instance", "app.kubernetes.io/version"}

// nameLabel is on every object the chart renders (the chart's objects: aim-apiserver; the bundled etcd's
// StatefulSet, Services and NetworkPolicy: aim-etcd), while artifacts/deploy has it only on pod templates and in
// selectors. stripHelm removes it from objects' own metadata only: on pod templates both sides must agree.
const nameLabel = "app.kubernetes.io/name"

// outsideBase are the kinds artifacts/deploy creates outside its base (secretGenerator, the cert-manager
// overlay), so without the base's app.kubernetes.io/part-of label; the chart labels every object alike.
var outsideBase = map[string]bool{"Secret": true, "Certificate": true, "Issuer": true}

// stripHelm removes from a rendered chart object what only Helm adds.
func stripHelm(t *testing.T, o object) {
	t.Helper()
	for i, meta := range []map[string]any{mapAt(o, "metadata"), mapAt(o, "spec", "template", "metadata")} {
		if meta == nil {
			continue
		}
		labels, _ := meta["labels"].(map[string]any)
		if i == 0 {
			if labels[nameLabel] != "aim-apiserver" && labels[nameLabel] != "aim-etcd" {
				t.Errorf("%s: %s is %v", key(o), nameLabel, labels[nameLabel])
			}
			delete(labels, nameLabel)
		}
		if labels != nil && labels["app.kubernetes.io/managed-by"] != nil && labels["app.kubernetes.io/managed-by"] != "Helm" {
			t.Errorf("%s: app.kubernetes.io/managed-by is %v", key(o), labels["app.kubernetes.io/managed-by"])
		}
		for _, l := range helmOnlyLabels {
			delete(labels, l)
		}
		if outsideBase[o["kind"].(string)] {
			delete(labels, "app.kubernetes.io/part-of")
		}
		if len(labels) == 0 {
			delete(meta, "labels")
		}
		annotations, _ := meta["annotations"].(map[string]any)
		for a := range annotations {
			if strings.HasPrefix(a, "checksum/") {
				delete(annotations, a)
			}
		}
		if len(annotations) == 0 {
			delete(meta, "annotations")
		}
	}
}

// compare checks that both lists hold the same objects, equal after normalization.
func compare(t *testing.T, chart, kust []object) {
	t.Helper()
	c, k := index(chart), index(kust)
	var onlyChart, onlyKust, differ []string
	for id, o := range c {
		ko, ok := k[id]
		if !ok {
			onlyChart = append(onlyChart, id)
			continue
		}
		if !reflect.DeepEqual(o, ko) {
			differ = append(differ, id)
			t.Errorf("%s differs (- chart, + kustomize):\n%s", id, diff.Diff(o, ko))
		}
	}
	for id := range k {
		if _, ok := c[id]; !ok {
			onlyKust = append(onlyKust, id)
		}
	}
	sort.Strings(onlyChart)
	sort.Strings(onlyKust)
	if len(onlyChart) > 0 {
		t.Errorf("only the chart renders:\n  %s", strings.Join(onlyChart, "\n  "))
	}
	if len(onlyKust) > 0 {
		t.Errorf("only kustomize renders:\n  %s", strings.Join(onlyKust, "\n  "))
	}
	if len(c) != len(chart) || len(k) != len(kust) {
		t.Errorf("duplicate objects: chart %d/%d, kustomize %d/%d", len(c), len(chart), len(k), len(kust))
	}
	if !t.Failed() {
		t.Logf("%d objects equal", len(c))
	}
}

// ---- equality with artifacts/deploy --------------------------------------------------------------------------

// The default values install what `kubectl apply -k artifacts/deploy` does (createNamespace: the base also
// creates the Namespace, which helm install leaves to --create-namespace). Neither holds a certificate:
// aim-apiserver makes them.
func TestChartEqualsKustomizeBase(t *testing.T) {
	chart := helmTemplate(t, "--set", "createNamespace=true")
	kust := kustomize(t, deployDir)
	for _, o := range chart {
		stripHelm(t, o)
	}
	for what, objs := range map[string][]object{"chart": chart, "kustomize": kust} {
		for _, o := range objs {
			if o["kind"] == "Secret" {
				t.Errorf("%s renders %s", what, key(o))
			}
		}
	}
	compare(t, chart, kust)
}

// With cert-manager for both certificate sets the chart installs what artifacts/deploy/cert-manager does.
func TestChartEqualsCertManagerOverlay(t *testing.T) {
	chart := helmTemplate(t, "--set", "createNamespace=true", "--set", "servingCert.mode=certManager",
		"--set", "etcd.certs.mode=certManager")
	kust := kustomize(t, filepath.Join(deployDir, "cert-manager"))
	for _, o := range chart {
		stripHelm(t, o)
		if o["kind"] == "Secret" {
			t.Errorf("cert-manager mode renders %s", key(o))
		}
	}
	if _, ok := mapAt(find(t, chart, "APIService", "v1alpha1.aim.eai.amd.com"), "spec")["caBundle"]; ok {
		t.Error("cert-manager mode renders a caBundle; cainjector owns it")
	}
	compare(t, chart, kust)
}

// ---- generated certificates ----------------------------------------------------------------------------------

func parseCert(t *testing.T, what, b64 string) *x509.Certificate {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	block, _ := pem.Decode(raw)
	if block == nil {
		t.Fatalf("%s: no PEM", what)
	}
	c, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return c
}

// The chart's own certificates: signed by their CA, for the names artifacts/deploy's scripts put on theirs, with
// the APIService trusting the serving CA and one etcd CA behind server, peer and client.
func TestChartGeneratedCertificates(t *testing.T) {
	objs := helmTemplate(t, "--set", "servingCert.mode=generate", "--set", "etcd.certs.mode=generate")
	check := func(secret string, usage x509.ExtKeyUsage, dnsNames []string, ips ...string) *x509.Certificate {
		t.Helper()
		s := find(t, objs, "Secret", secret)
		if s["type"] != "kubernetes.io/tls" {
			t.Errorf("%s: type %v", secret, s["type"])
		}
		ca := parseCert(t, secret+" ca.crt", str(s, "data", "ca.crt"))
		cert := parseCert(t, secret+" tls.crt", str(s, "data", "tls.crt"))
		pool := x509.NewCertPool()
		pool.AddCert(ca)
		if _, err := cert.Verify(x509.VerifyOptions{Roots: pool, KeyUsages: []x509.ExtKeyUsage{usage}}); err != nil {
			t.Errorf("%s: tls.crt does not verify against ca.crt for %v: %v", secret, usage, err)
		}
		if !slices.Equal(cert.DNSNames, dnsNames) {
			t.Errorf("%s: DNS names %v, want %v", secret, cert.DNSNames, dnsNames)
		}
		var gotIPs []string
		for _, ip := range cert.IPAddresses {
			gotIPs = append(gotIPs, ip.String())
		}
		if !slices.Equal(gotIPs, ips) {
			t.Errorf("%s: IP addresses %v, want %v", secret, gotIPs, ips)
		}
		if len(str(s, "data", "tls.key")) == 0 {
			t.Errorf("%s: no tls.key", secret)
		}
		return ca
	}
	svc := func(name string) []string {
		return []string{name, name + ".aim-system", name + ".aim-system.svc", name + ".aim-system.svc.cluster.local"}
	}
	members := []string{"*.aim-etcd.aim-system.svc", "*.aim-etcd.aim-system.svc.cluster.local"}

	check("aim-apiserver-serving-cert", x509.ExtKeyUsageServerAuth, svc("aim-apiserver"))
	if got, want := str(find(t, objs, "APIService", "v1alpha1.aim.eai.amd.com"), "spec", "caBundle"),
		str(find(t, objs, "Secret", "aim-apiserver-serving-cert"), "data", "ca.crt"); got != want {
		t.Error("the APIService's caBundle is not the serving Secret's ca.crt")
	}
	serverCA := check("aim-etcd-server-tls", x509.ExtKeyUsageServerAuth, append(append(svc("aim-etcd-client"), members...), "localhost"), "127.0.0.1")
	peerCA := check("aim-etcd-peer-tls", x509.ExtKeyUsageServerAuth, members)
	clientCA := check("aim-apiserver-etcd-client", x509.ExtKeyUsageClientAuth, nil)
	if !serverCA.Equal(peerCA) || !serverCA.Equal(clientCA) {
		t.Error("the etcd server, peer and client certificates have different CAs")
	}
	client := parseCert(t, "client", str(find(t, objs, "Secret", "aim-apiserver-etcd-client"), "data", "tls.crt"))
	if cn := client.Subject.CommonName; cn != "aim-apiserver" {
		t.Errorf("etcd client certificate CN %q", cn)
	}
	// The checksums that roll pods are computed over the same certificates the Secrets hold, once per render.
	dep := find(t, objs, "Deployment", "aim-apiserver")
	for _, a := range []string{"checksum/serving-cert", "checksum/etcd-client"} {
		if str(dep, "spec", "template", "metadata", "annotations", a) == "" {
			t.Errorf("Deployment lacks %s", a)
		}
	}
	if str(find(t, objs, "StatefulSet", "aim-etcd"), "spec", "template", "metadata", "annotations", "checksum/etcd-certs") == "" {
		t.Error("StatefulSet lacks checksum/etcd-certs")
	}
	// A later switch to etcd.certs.mode=self goes on with them instead of Helm deleting what the members use.
	for _, name := range []string{"aim-etcd-server-tls", "aim-etcd-peer-tls", "aim-apiserver-etcd-client"} {
		if got := str(find(t, objs, "Secret", name), "metadata", "annotations", "helm.sh/resource-policy"); got != "keep" {
			t.Errorf("%s: helm.sh/resource-policy %q", name, got)
		}
	}
}

// ---- the other modes -----------------------------------------------------------------------------------------

const caPEM = "-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n"

func TestChartExistingSecrets(t *testing.T) {
	objs := helmTemplate(t, "--set", "servingCert.mode=existing", "--set", "servingCert.existingSecret=my-serving",
		"--set", "servingCert.caBundle="+caPEM, "--set", "etcd.certs.mode=existing",
		"--set", "etcd.certs.existingSecrets.server=my-etcd-server", "--set", "etcd.certs.existingSecrets.peer=my-etcd-peer",
		"--set", "etcd.certs.existingSecrets.client=my-etcd-client")
	for _, o := range objs {
		if o["kind"] == "Secret" || o["kind"] == "Certificate" || o["kind"] == "Issuer" {
			t.Errorf("existing Secrets, yet the chart renders %s", key(o))
		}
	}
	if got := str(find(t, objs, "APIService", "v1alpha1.aim.eai.amd.com"), "spec", "caBundle"); got != base64.StdEncoding.EncodeToString([]byte(caPEM)) {
		t.Errorf("caBundle %q is not servingCert.caBundle, base64", got)
	}
	want := map[string]string{"serving-cert": "my-serving", "etcd-client": "my-etcd-client"}
	if got := volumeSecrets(find(t, objs, "Deployment", "aim-apiserver")); !reflect.DeepEqual(got, want) {
		t.Errorf("Deployment mounts %v, want %v", got, want)
	}
	want = map[string]string{"server-tls": "my-etcd-server", "peer-tls": "my-etcd-peer"}
	if got := volumeSecrets(find(t, objs, "StatefulSet", "aim-etcd")); !reflect.DeepEqual(got, want) {
		t.Errorf("StatefulSet mounts %v, want %v", got, want)
	}
	for _, o := range []object{find(t, objs, "Deployment", "aim-apiserver"), find(t, objs, "StatefulSet", "aim-etcd")} {
		if a := mapAt(o, "spec", "template", "metadata", "annotations"); len(a) != 0 {
			t.Errorf("%s: checksum annotations without generated certificates: %v", key(o), a)
		}
	}

	// Without a caBundle the chart reads ca.crt from the cluster, which helm template cannot: it says so.
	msg := helmTemplateError(t, "--set", "servingCert.mode=existing", "--set", "servingCert.existingSecret=my-serving")
	if !strings.Contains(msg, "servingCert.caBundle") {
		t.Errorf("error without caBundle does not name servingCert.caBundle:\n%s", msg)
	}
	// ... unless there is no APIService to fill.
	helmTemplate(t, "--set", "servingCert.mode=existing", "--set", "servingCert.existingSecret=my-serving", "--set", "apiService.create=false")
	for _, args := range [][]string{
		{"--set", "servingCert.mode=existing"},
		{"--set", "etcd.certs.mode=existing", "--set", "etcd.certs.existingSecrets.server=a", "--set", "etcd.certs.existingSecrets.peer=b"},
	} {
		if msg := helmTemplateError(t, args...); !strings.Contains(msg, "is required") {
			t.Errorf("%v: %s", args, msg)
		}
	}
}

func TestChartExternalEtcd(t *testing.T) {
	// Monitoring on: the ServiceMonitor aim-etcd is not rendered either.
	objs := helmTemplate(t, "--set", "etcd.mode=external",
		"--set", "etcd.external.endpoints={https://etcd-0.example:2379,https://etcd-1.example:2379}",
		"--set", "etcd.external.clientSecret=my-etcd-client", "--set", "monitoring.serviceMonitor.enabled=true",
		"--set", "monitoring.prometheusRule.enabled=true")
	for _, o := range objs {
		name := str(o, "metadata", "name")
		if strings.HasPrefix(name, "aim-etcd") || name == "aim-apiserver-etcd-client" {
			t.Errorf("external etcd, yet the chart renders %s", key(o))
		}
	}
	dep := find(t, objs, "Deployment", "aim-apiserver")
	if args := containerArgs(dep, "args"); !slices.Contains(args, "--etcd-servers=https://etcd-0.example:2379,https://etcd-1.example:2379") {
		t.Errorf("args lack the external endpoints: %v", args)
	}
	if got := volumeSecrets(dep)["etcd-client"]; got != "my-etcd-client" {
		t.Errorf("etcd client certificate from %q", got)
	}
	if got := str(dep, "spec", "template", "metadata", "annotations", "checksum/etcd-client"); got != "" {
		t.Error("checksum of an etcd client certificate the chart did not generate")
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--set", "etcd.mode=external", "--set", "etcd.external.clientSecret=c"}, "etcd.external.endpoints is required"},
		{[]string{"--set", "etcd.mode=external", "--set", "etcd.external.endpoints={https://e:2379}"}, "etcd.external.clientSecret is required"},
		{[]string{"--set", "etcd.mode=external", "--set", "etcd.external.endpoints={http://e:2379}", "--set", "etcd.external.clientSecret=c"}, "TLS only"},
		{[]string{"--set", "etcd.mode=embedded"}, "/etcd/mode"},
	} {
		if msg := helmTemplateError(t, c.args...); !strings.Contains(msg, c.want) {
			t.Errorf("%v: error lacks %q:\n%s", c.args, c.want, msg)
		}
	}
}

func TestChartValues(t *testing.T) {
	objs := helmTemplate(t, "--set", "image.tag=v9.9.9", "--set", "image.pullPolicy=Always", "--set", "replicas=3",
		"--set", "resources.limits.memory=2Gi", "--set", "extraArgs={--controller-workers=4,--image-metadata-registries=ghcr.io}",
		"--set", "flags.etcdRequestTimeout=20s", "--set", "etcd.replicas=5", "--set", "etcd.storage.size=50Gi",
		"--set", "etcd.storage.storageClassName=fast", "--set", "etcd.image.tag=3.6.5-0", "--set", "apiService.create=false")
	dep := find(t, objs, "Deployment", "aim-apiserver")
	c := field(dep, "spec", "template", "spec", "containers").([]any)[0].(map[string]any)
	if c["image"] != "ghcr.io/aim-apiserver/aim-apiserver:v9.9.9" || c["imagePullPolicy"] != "Always" {
		t.Errorf("image %v, pull policy %v", c["image"], c["imagePullPolicy"])
	}
	if field(dep, "spec", "replicas") != float64(3) {
		t.Errorf("replicas %v", field(dep, "spec", "replicas"))
	}
	if got := field(c, "resources", "limits", "memory"); got != "2Gi" {
		t.Errorf("memory limit %v", got)
	}
	args := containerArgs(dep, "args")
	if n := len(args); n < 2 || args[n-2] != "--controller-workers=4" || args[n-1] != "--image-metadata-registries=ghcr.io" ||
		!slices.Contains(args, "--etcd-request-timeout=20s") {
		t.Errorf("args %v", args)
	}
	sts := find(t, objs, "StatefulSet", "aim-etcd")
	if field(sts, "spec", "replicas") != float64(5) {
		t.Errorf("etcd replicas %v", field(sts, "spec", "replicas"))
	}
	if cmd := containerArgs(sts, "command"); !slices.Contains(cmd, "--initial-cluster=aim-etcd-0=https://aim-etcd-0.aim-etcd.$(POD_NAMESPACE).svc:2380,"+
		"aim-etcd-1=https://aim-etcd-1.aim-etcd.$(POD_NAMESPACE).svc:2380,aim-etcd-2=https://aim-etcd-2.aim-etcd.$(POD_NAMESPACE).svc:2380,"+
		"aim-etcd-3=https://aim-etcd-3.aim-etcd.$(POD_NAMESPACE).svc:2380,aim-etcd-4=https://aim-etcd-4.aim-etcd.$(POD_NAMESPACE).svc:2380") {
		t.Errorf("initial cluster of 5 members missing: %v", cmd)
	}
	pvc := field(sts, "spec", "volumeClaimTemplates").([]any)[0].(map[string]any)
	if field(pvc, "spec", "storageClassName") != "fast" || field(pvc, "spec", "resources", "requests", "storage") != "50Gi" {
		t.Errorf("volume claim %v", pvc["spec"])
	}
	if has(objs, "APIService", "v1alpha1.aim.eai.amd.com") {
		t.Error("apiService.create=false renders the APIService")
	}
	if msg := helmTemplateError(t, "--set", "etcd.replicas=2"); !strings.Contains(msg, "/etcd/replicas") {
		t.Errorf("even etcd.replicas accepted: %s", msg)
	}
}

// The default AIMClusterRuntimeConfig is rendered only where its API is served (helm install/upgrade read that
// from discovery; helm template takes --api-versions).
// TestChartDeclaredObjects: the default runtime config and the cluster model source are declared in ConfigMaps,
// rendered on install whatever the cluster serves (aim-apiserver applies them), never as objects of kinds the
// first install could not map; aim-apiserver is always pointed at both ConfigMaps and may read only them. The
// model source has aim-engine's chart's spec by default.
func TestChartDeclaredObjects(t *testing.T) {
	defaults := helmTemplate(t)
	for _, c := range []struct {
		configMap, kind, flag string
		values                []string
		wantName, wantSpec    string
	}{
		{"aim-apiserver-default-runtime-config", "AIMClusterRuntimeConfig", "--default-runtime-config-configmap",
			[]string{"--set", "defaultRuntimeConfig.enabled=true", "--set", "defaultRuntimeConfig.spec.discovery.maxConcurrentJobs=5",
				"--set", "defaultRuntimeConfig.spec.storage.defaultStorageClassName=fast"},
			"", `{discovery: {maxConcurrentJobs: 5}, storage: {defaultStorageClassName: fast}}`},
		{"aim-apiserver-cluster-model-source", "AIMClusterModelSource", "--cluster-model-source-configmap",
			[]string{"--set", "clusterModelSource.enabled=true"},
			"amd-aim-model-source", `{registry: docker.io, filters: [{image: "amdenterpriseai/aim-*", versions: [">=0.8.4"]}], syncInterval: 1h, maxModels: 500}`},
	} {
		if has(defaults, "ConfigMap", c.configMap) {
			t.Errorf("rendered %s although it is not enabled", c.configMap)
		}
		objs := helmTemplate(t, c.values...)
		for _, o := range objs {
			if o["kind"] == c.kind {
				t.Errorf("rendered an %s, whose kind the first install cannot map", c.kind)
			}
		}
		cm := find(t, objs, "ConfigMap", c.configMap)
		if name := str(cm, "data", "name"); name != c.wantName {
			t.Errorf("%s: name %q, want %q", c.configMap, name, c.wantName)
		}
		var spec map[string]any
		if err := yaml.Unmarshal([]byte(str(cm, "data", "spec.yaml")), &spec); err != nil {
			t.Fatalf("%s: spec.yaml: %v", c.configMap, err)
		}
		jsonEqual(t, c.configMap+" spec.yaml", spec, c.wantSpec)
		if args := containerArgs(find(t, objs, "Deployment", "aim-apiserver"), "args"); !slices.Contains(args, c.flag+"=aim-system/"+c.configMap) {
			t.Errorf("args %v", args)
		}
	}
	jsonEqual(t, "Role", find(t, defaults, "Role", "aim-apiserver-default-runtime-config")["rules"],
		`[{apiGroups: [""], resources: [configmaps], resourceNames: [aim-apiserver-default-runtime-config, aim-apiserver-cluster-model-source], verbs: [get, list, watch]}]`)
}

// TestChartEngineUserRoles: the chart installs aim-engine's user roles, by default as aim-engine's chart does, with
// the names and rules the migration keeps (pkg/migrate), and nothing of aim-engine's else.
func TestChartEngineUserRoles(t *testing.T) {
	var got []object
	for _, o := range helmTemplate(t) {
		if o["kind"] == "ClusterRole" && strings.HasPrefix(str(o, "metadata", "name"), "aim-engine-") {
			got = append(got, o)
		}
	}
	roles := migrate.EngineUserRoles()
	if len(got) != len(roles) {
		t.Errorf("%d ClusterRoles named aim-engine-*, want %d", len(got), len(roles))
	}
	for i, r := range roles {
		if i >= len(got) {
			break
		}
		if name := str(got[i], "metadata", "name"); name != r.Name {
			t.Errorf("role %d is %s, want %s", i, name, r.Name)
			continue
		}
		verbs, _ := json.Marshal(migrate.EngineUserRoleVerbs[r.Role])
		jsonEqual(t, r.Name+" rules", got[i]["rules"], fmt.Sprintf(`[{apiGroups: [aim.eai.amd.com], resources: [%s], verbs: %s},
			{apiGroups: [aim.eai.amd.com], resources: [%[1]s/status], verbs: [get]}]`, r.Resource, verbs))
	}
	for _, o := range helmTemplate(t, "--set", "rbacHelpers.enabled=false") {
		if strings.HasPrefix(str(o, "metadata", "name"), "aim-engine-") {
			t.Errorf("rbacHelpers.enabled=false renders %s", key(o))
		}
	}
}

// TestChartRegistryMirrors: registryMirrors becomes the ConfigMap aim-apiserver-registries, mounted as a directory
// (so that edits reach the pod) and named by --registry-config; what it holds is a configuration the server
// accepts. Without it, nothing is rendered.
func TestChartRegistryMirrors(t *testing.T) {
	objs := helmTemplate(t)
	if has(objs, "ConfigMap", "aim-apiserver-registries") || slices.ContainsFunc(containerArgs(find(t, objs, "Deployment", "aim-apiserver"), "args"),
		func(a string) bool { return strings.HasPrefix(a, "--registry-config") }) {
		t.Error("registry mirrors rendered without registryMirrors")
	}
	objs = helmTemplate(t, "--set-json", `registryMirrors={"rewriteImages":true,"registries":{"docker.io":{"fallback":false,`+
		`"mirrors":[{"endpoint":"https://harbor.example.com/dockerhub-proxy","capabilities":["pull","resolve","list"]}]}}}`)
	data := str(find(t, objs, "ConfigMap", "aim-apiserver-registries"), "data", "registries.yaml")
	cfg, err := mirrors.Parse([]byte(data))
	if err != nil {
		t.Fatalf("registries.yaml does not parse: %v\n%s", err, data)
	}
	if e := cfg.Endpoints("docker.io", mirrors.List); len(e) != 1 || e[0].String() != "https://harbor.example.com/dockerhub-proxy" || !cfg.RewriteImages() {
		t.Errorf("configuration %v from\n%s", e, data)
	}
	d := find(t, objs, "Deployment", "aim-apiserver")
	if args := containerArgs(d, "args"); !slices.Contains(args, "--registry-config=/etc/aim-apiserver/registries/registries.yaml") {
		t.Errorf("args %v", args)
	}
	spec := d["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
	jsonEqual(t, "volume", named(spec["volumes"], "registries"), `{name: registries, configMap: {name: aim-apiserver-registries}}`)
	container := spec["containers"].([]any)[0].(map[string]any)
	jsonEqual(t, "mount", named(container["volumeMounts"], "registries"), `{name: registries, mountPath: /etc/aim-apiserver/registries, readOnly: true}`)
}

func TestChartServiceMonitor(t *testing.T) {
	objs := helmTemplate(t)
	if has(objs, "ServiceMonitor", "aim-apiserver") || has(objs, "ClusterRoleBinding", "aim-apiserver-metrics-reader") {
		t.Error("ServiceMonitor rendered although monitoring is off by default")
	}
	// The reader's role is there whatever the values, as aim-engine's aim-engine-metrics-reader.
	find(t, objs, "ClusterRole", "aim-apiserver-metrics-reader")
	objs = helmTemplate(t, "--set", "monitoring.serviceMonitor.enabled=true", "--set", "monitoring.serviceMonitor.labels.release=prom",
		"--set", "monitoring.serviceMonitor.prometheusServiceAccount.name=prometheus",
		"--set", "monitoring.serviceMonitor.prometheusServiceAccount.namespace=monitoring")
	sm := find(t, objs, "ServiceMonitor", "aim-apiserver")
	if sm["apiVersion"] != "monitoring.coreos.com/v1" || str(sm, "metadata", "labels", "release") != "prom" {
		t.Errorf("ServiceMonitor %v", sm["metadata"])
	}
	ep := field(sm, "spec", "endpoints").([]any)[0].(map[string]any)
	if ep["port"] != "https" || ep["scheme"] != "https" || field(ep, "tlsConfig", "serverName") != "aim-apiserver.aim-system.svc" ||
		field(ep, "tlsConfig", "ca", "secret", "name") != "aim-apiserver-serving-cert" {
		t.Errorf("endpoint %v", ep)
	}
	// It selects the Service aim-apiserver by labels that Service carries, and not etcd's Services.
	svcLabels := mapAt(find(t, objs, "Service", "aim-apiserver"), "metadata", "labels")
	for k, v := range mapAt(sm, "spec", "selector", "matchLabels") {
		if svcLabels[k] != v {
			t.Errorf("ServiceMonitor selects %s=%v; the Service has %v", k, v, svcLabels[k])
		}
	}
	for _, name := range []string{"aim-etcd", "aim-etcd-client"} {
		labels, selected := mapAt(find(t, objs, "Service", name), "metadata", "labels"), true
		for k, v := range mapAt(sm, "spec", "selector", "matchLabels") {
			selected = selected && labels[k] == v
		}
		if selected {
			t.Errorf("ServiceMonitor selects the Service %s", name)
		}
	}
	find(t, objs, "ClusterRole", "aim-apiserver-metrics-reader")
	crb := find(t, objs, "ClusterRoleBinding", "aim-apiserver-metrics-reader")
	if s := field(crb, "subjects").([]any)[0].(map[string]any); s["name"] != "prometheus" || s["namespace"] != "monitoring" {
		t.Errorf("metrics reader bound to %v", s)
	}

	// etcd's: plain HTTP on the port metrics, which only the headless Service aim-etcd has, with the same
	// interval and labels.
	etcd := find(t, objs, "ServiceMonitor", "aim-etcd")
	if etcd["apiVersion"] != "monitoring.coreos.com/v1" || str(etcd, "metadata", "labels", "release") != "prom" ||
		str(etcd, "metadata", "namespace") != namespace {
		t.Errorf("ServiceMonitor aim-etcd %v", etcd["metadata"])
	}
	jsonEqual(t, "etcd endpoints", field(etcd, "spec", "endpoints"), `[{port: metrics, scheme: http, path: /metrics, interval: 30s}]`)
	jsonEqual(t, "etcd namespaceSelector", field(etcd, "spec", "namespaceSelector"), `{matchNames: [aim-system]}`)
	if got := scrapedServices(t, objs, etcd); !slices.Equal(got, []string{"aim-etcd"}) {
		t.Errorf("ServiceMonitor aim-etcd scrapes the Services %v, want [aim-etcd]", got)
	}
	if got := scrapedServices(t, objs, sm); !slices.Equal(got, []string{"aim-apiserver"}) {
		t.Errorf("ServiceMonitor aim-apiserver scrapes the Services %v, want [aim-apiserver]", got)
	}
	if objs := helmTemplate(t, "--set", "monitoring.serviceMonitor.interval=1m"); has(objs, "ServiceMonitor", "aim-etcd") {
		t.Error("ServiceMonitor aim-etcd rendered although monitoring is off")
	}
	objs = helmTemplate(t, "--set", "monitoring.serviceMonitor.enabled=true", "--set", "monitoring.serviceMonitor.interval=1m")
	if got := field(find(t, objs, "ServiceMonitor", "aim-etcd"), "spec", "endpoints").([]any)[0].(map[string]any)["interval"]; got != "1m" {
		t.Errorf("etcd scrape interval %v", got)
	}
}

// scrapedServices returns the Services (of objs) whose endpoints a ServiceMonitor scrapes: those in its namespaces
// whose labels match its selector and that have a port its endpoints name. Their names are the targets' job
// label, since the ServiceMonitor sets no jobLabel.
func scrapedServices(t *testing.T, objs []object, sm object) []string {
	t.Helper()
	if jl := field(sm, "spec", "jobLabel"); jl != nil {
		t.Errorf("%s sets jobLabel %v", key(sm), jl)
	}
	namespaces, _ := field(sm, "spec", "namespaceSelector", "matchNames").([]any)
	ports := map[any]bool{}
	for _, ep := range field(sm, "spec", "endpoints").([]any) {
		ports[ep.(map[string]any)["port"]] = true
	}
	var names []string
	for _, o := range objs {
		if o["kind"] != "Service" || !slices.Contains(namespaces, any(str(o, "metadata", "namespace"))) {
			continue
		}
		labels, selected := mapAt(o, "metadata", "labels"), true
		for k, v := range mapAt(sm, "spec", "selector", "matchLabels") {
			selected = selected && labels[k] == v
		}
		portNamed := false
		for _, p := range field(o, "spec", "ports").([]any) {
			portNamed = portNamed || ports[p.(map[string]any)["name"]]
		}
		if selected && portNamed {
			names = append(names, str(o, "metadata", "name"))
		}
	}
	sort.Strings(names)
	return names
}

// ---- the bundled etcd's operation: disruption budget, spread, space, metrics ----------------------------------

// etcdDefaultAffinity is the etcd pods' affinity while etcd.affinity is empty.
const etcdDefaultAffinity = `{podAntiAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 100,
  podAffinityTerm: {topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app.kubernetes.io/name: aim-etcd}}}}]}}`

// TestChartEtcdOperations: the bundled etcd as etcd's operations guide advises: a PodDisruptionBudget that keeps
// the quorum, members spread over nodes, a space quota below the volume with etcd's own periodic compaction, and
// its metrics port reachable by Prometheus (and nothing else newly reachable); none of it with an external etcd.
func TestChartEtcdOperations(t *testing.T) {
	objs := helmTemplate(t)
	pdb := find(t, objs, "PodDisruptionBudget", "aim-etcd")
	jsonEqual(t, "PodDisruptionBudget aim-etcd", pdb["spec"], `{maxUnavailable: 1, selector: {matchLabels: {app.kubernetes.io/name: aim-etcd}}}`)
	sts := find(t, objs, "StatefulSet", "aim-etcd")
	podLabels := mapAt(sts, "spec", "template", "metadata", "labels")
	for k, v := range mapAt(pdb, "spec", "selector", "matchLabels") {
		if podLabels[k] != v {
			t.Errorf("PodDisruptionBudget aim-etcd selects %s=%v; the etcd pods have %v", k, v, podLabels[k])
		}
	}
	jsonEqual(t, "default etcd affinity", podSpec(sts)["affinity"], etcdDefaultAffinity)
	cmd := containerArgs(sts, "command")
	for _, want := range []string{"--quota-backend-bytes=4294967296", "--auto-compaction-mode=periodic", "--auto-compaction-retention=1h"} {
		if !slices.Contains(cmd, want) {
			t.Errorf("etcd command lacks %s: %v", want, cmd)
		}
	}
	for _, a := range cmd {
		if strings.HasPrefix(a, "--snapshot-count") {
			t.Errorf("etcd command sets %s", a)
		}
	}

	// The metrics port: in the headless Service, and admitted from any pod of any namespace by a rule of its own;
	// the client and peer rules stay as they were.
	jsonEqual(t, "Service aim-etcd ports", field(find(t, objs, "Service", "aim-etcd"), "spec", "ports"),
		`[{name: peer, port: 2380}, {name: client, port: 2379}, {name: metrics, port: 2381}]`)
	jsonEqual(t, "Service aim-etcd-client ports", field(find(t, objs, "Service", "aim-etcd-client"), "spec", "ports"),
		`[{name: client, port: 2379}]`)
	jsonEqual(t, "NetworkPolicy aim-etcd ingress", field(find(t, objs, "NetworkPolicy", "aim-etcd"), "spec", "ingress"), `[
  {from: [{podSelector: {matchLabels: {app.kubernetes.io/name: aim-apiserver}}}, {podSelector: {matchLabels: {app.kubernetes.io/name: aim-etcd-maintenance}}}],
   ports: [{protocol: TCP, port: 2379}]},
  {from: [{podSelector: {matchLabels: {app.kubernetes.io/name: aim-etcd}}}], ports: [{protocol: TCP, port: 2379}, {protocol: TCP, port: 2380}]},
  {from: [{namespaceSelector: {}}], ports: [{protocol: TCP, port: 2381}]}]`)
	if p := named(container(sts)["ports"], "metrics"); fmt.Sprint(p["containerPort"]) != "2381" || !slices.Contains(cmd, "--listen-metrics-urls=http://0.0.0.0:2381") {
		t.Errorf("etcd does not serve metrics on 2381: port %v, command %v", p, cmd)
	}

	// Values: integers stay integers whether they come from --set (int64) or a values file (float64).
	objs = helmTemplate(t, "--set", "etcd.quotaBackendBytes=4294967296", "--set", "etcd.autoCompactionRetention=30m",
		"--set", "etcd.podDisruptionBudget.maxUnavailable=2", "--set", "etcd.replicas=5")
	cmd = containerArgs(find(t, objs, "StatefulSet", "aim-etcd"), "command")
	for _, want := range []string{"--quota-backend-bytes=4294967296", "--auto-compaction-mode=periodic", "--auto-compaction-retention=30m"} {
		if !slices.Contains(cmd, want) {
			t.Errorf("etcd command lacks %s: %v", want, cmd)
		}
	}
	if got := field(find(t, objs, "PodDisruptionBudget", "aim-etcd"), "spec", "maxUnavailable"); got != float64(2) {
		t.Errorf("maxUnavailable %v", got)
	}
	objs = helmTemplate(t, "--values", valuesFile(t, `
etcd:
  quotaBackendBytes: 17179869184
  podDisruptionBudget: {maxUnavailable: "34%"}
  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: pool, operator: In, values: [etcd]}]}]}}}
`))
	sts = find(t, objs, "StatefulSet", "aim-etcd")
	if cmd := containerArgs(sts, "command"); !slices.Contains(cmd, "--quota-backend-bytes=17179869184") {
		t.Errorf("quota from a values file: %v", cmd)
	}
	if got := field(find(t, objs, "PodDisruptionBudget", "aim-etcd"), "spec", "maxUnavailable"); got != "34%" {
		t.Errorf("maxUnavailable %v", got)
	}
	// etcd.affinity replaces the default anti-affinity, it is not merged into it.
	jsonEqual(t, "etcd.affinity", podSpec(sts)["affinity"],
		`{nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: pool, operator: In, values: [etcd]}]}]}}}`)
	// null, like {}, keeps the default.
	jsonEqual(t, "etcd.affinity null", podSpec(find(t, helmTemplate(t, "--set", "etcd.affinity=null"), "StatefulSet", "aim-etcd"))["affinity"],
		etcdDefaultAffinity)

	objs = helmTemplate(t, "--set", "etcd.mode=external", "--set", "etcd.external.endpoints={https://e:2379}", "--set", "etcd.external.clientSecret=c")
	for _, kind := range []string{"PodDisruptionBudget", "StatefulSet", "NetworkPolicy", "Service"} {
		if has(objs, kind, "aim-etcd") {
			t.Errorf("external etcd, yet %s aim-etcd is rendered", kind)
		}
	}
	if !has(objs, "PodDisruptionBudget", "aim-apiserver") {
		t.Error("external etcd drops aim-apiserver's PodDisruptionBudget")
	}
}

// ---- the PrometheusRule --------------------------------------------------------------------------------------

// promrules runs hack/tools/promrules, Prometheus's own rule parser, on a rule file: nil if Prometheus would load it.
func promrules(t *testing.T, rules []byte) (string, error) {
	t.Helper()
	f := filepath.Join(t.TempDir(), "rules.yaml")
	if err := os.WriteFile(f, rules, 0o644); err != nil {
		t.Fatal(err)
	}
	return command(t, promrulesBin, f)
}

// ruleGroups returns the PrometheusRule's groups by name, each its alerts by name.
func ruleGroups(t *testing.T, rule object) map[string]map[string]map[string]any {
	t.Helper()
	groups := map[string]map[string]map[string]any{}
	list, _ := field(rule, "spec", "groups").([]any)
	for _, g := range list {
		g := g.(map[string]any)
		alerts := map[string]map[string]any{}
		rules, _ := g["rules"].([]any)
		for _, r := range rules {
			r := r.(map[string]any)
			alerts[r["alert"].(string)] = r
		}
		groups[g["name"].(string)] = alerts
	}
	return groups
}

// TestChartPrometheusRule: the alerts are what Prometheus loads (its own parser checks the rule file the spec is,
// PromQL and templates included), with a severity, a summary and a description each; the etcd ones select the job
// of the ServiceMonitor aim-etcd and exist only with the bundled etcd.
func TestChartPrometheusRule(t *testing.T) {
	if objs := helmTemplate(t, "--set", "monitoring.serviceMonitor.enabled=true"); has(objs, "PrometheusRule", "aim-apiserver") {
		t.Error("PrometheusRule rendered although monitoring.prometheusRule is off by default")
	}

	// The negative control: promrules refuses a broken expression (and so fails the checks below when it should).
	if out, err := promrules(t, []byte("groups:\n  - name: broken\n    rules:\n      - alert: Broken\n        expr: sum(rate(x[5m]) > 1\n")); err == nil {
		t.Errorf("promrules accepted an invalid expression:\n%s", out)
	} else if !strings.Contains(out, "parse error") {
		t.Errorf("promrules failed without a parse error: %v\n%s", err, out)
	}

	objs := helmTemplate(t, "--set", "monitoring.prometheusRule.enabled=true", "--set", "monitoring.prometheusRule.labels.release=prom",
		"--set", "monitoring.serviceMonitor.enabled=true")
	rule := find(t, objs, "PrometheusRule", "aim-apiserver")
	if rule["apiVersion"] != "monitoring.coreos.com/v1" || str(rule, "metadata", "namespace") != namespace ||
		str(rule, "metadata", "labels", "release") != "prom" {
		t.Errorf("PrometheusRule %v %v", rule["apiVersion"], rule["metadata"])
	}
	spec, err := yaml.Marshal(rule["spec"])
	if err != nil {
		t.Fatal(err)
	}
	if out, err := promrules(t, spec); err != nil {
		t.Fatalf("Prometheus would not load the rules: %v\n%s\n%s", err, out, spec)
	}

	type alert struct{ expr, for_, severity string }
	want := map[string]map[string]alert{
		"aim-apiserver": {
			"AIMAPIServiceUnavailable": {`aggregator_unavailable_apiservice{name="v1alpha1.aim.eai.amd.com"} == 1`, "5m", "critical"},
			"AIMControllerReconcileErrors": {`sum by (controller) (rate(controller_runtime_reconcile_errors_total[10m])) > 0.1`,
				"15m", "warning"},
		},
		"aim-etcd": {
			"AIMEtcdDatabaseNearQuota": {`etcd_mvcc_db_total_size_in_bytes{job="aim-etcd"} / etcd_server_quota_backend_bytes{job="aim-etcd"} > 0.8`,
				"10m", "warning"},
			"AIMEtcdNoLeader":              {`etcd_server_has_leader{job="aim-etcd"} == 0`, "1m", "critical"},
			"AIMEtcdFrequentLeaderChanges": {`increase(etcd_server_leader_changes_seen_total{job="aim-etcd"}[1h]) > 3`, "5m", "warning"},
		},
		"aim-etcd-backup": {
			"AIMEtcdSnapshotsStale": {`time() - max(kube_cronjob_status_last_successful_time{namespace="aim-system", cronjob="aim-etcd-snapshot"}) > 90000`,
				"15m", "warning"},
		},
	}
	groups := ruleGroups(t, rule)
	if len(groups) != len(want) {
		t.Errorf("rule groups %v", slices.Sorted(maps.Keys(groups)))
	}
	for group, alerts := range want {
		if len(groups[group]) != len(alerts) {
			t.Errorf("group %s has alerts %v", group, slices.Sorted(maps.Keys(groups[group])))
		}
		for name, w := range alerts {
			r := groups[group][name]
			if r == nil {
				t.Errorf("group %s lacks the alert %s", group, name)
				continue
			}
			if r["expr"] != w.expr || r["for"] != w.for_ || field(r, "labels", "severity") != w.severity {
				t.Errorf("%s: expr %q for %v severity %v, want %q for %s severity %s", name, r["expr"], r["for"],
					field(r, "labels", "severity"), w.expr, w.for_, w.severity)
			}
			for _, a := range []string{"summary", "description"} {
				if s, _ := field(r, "annotations", a).(string); strings.TrimSpace(s) == "" {
					t.Errorf("%s has no %s", name, a)
				}
			}
		}
	}
	if d, _ := field(groups["aim-apiserver"]["AIMAPIServiceUnavailable"], "annotations", "description").(string); !strings.Contains(d, "kube-apiserver's own scrape") {
		t.Errorf("AIMAPIServiceUnavailable does not say where its metric comes from: %q", d)
	}
	// The etcd alerts select the job of the targets of the ServiceMonitor aim-etcd: the name of the Service it scrapes.
	jobs := scrapedServices(t, objs, find(t, objs, "ServiceMonitor", "aim-etcd"))
	jobMatcher := regexp.MustCompile(`job="([^"]*)"`)
	for name, r := range groups["aim-etcd"] {
		m := jobMatcher.FindAllStringSubmatch(r["expr"].(string), -1)
		if len(m) == 0 {
			t.Errorf("%s does not select a job: %s", name, r["expr"])
		}
		for _, j := range m {
			if !slices.Equal(jobs, []string{j[1]}) {
				t.Errorf("%s selects job=%q; the ServiceMonitor aim-etcd scrapes %v", name, j[1], jobs)
			}
		}
	}

	// An external etcd: no etcd group; the rest still loads.
	objs = helmTemplate(t, "--set", "monitoring.prometheusRule.enabled=true", "--set", "etcd.mode=external",
		"--set", "etcd.external.endpoints={https://e:2379}", "--set", "etcd.external.clientSecret=c")
	rule = find(t, objs, "PrometheusRule", "aim-apiserver")
	groups = ruleGroups(t, rule)
	if _, ok := groups["aim-etcd"]; ok || groups["aim-etcd-backup"] != nil || len(groups["aim-apiserver"]) != 2 {
		t.Errorf("external etcd: rule groups %v", groups)
	}
	if spec, err = yaml.Marshal(rule["spec"]); err != nil {
		t.Fatal(err)
	}
	if out, err := promrules(t, spec); err != nil {
		t.Errorf("external etcd: Prometheus would not load the rules: %v\n%s\n%s", err, out, spec)
	}
}

// ---- pods: environment, volumes, scheduling, security, images, network ---------------------------------------

func podSpec(o object) map[string]any { return mapAt(o, "spec", "template", "spec") }

func container(o object) map[string]any {
	containers, _ := field(o, "spec", "template", "spec", "containers").([]any)
	if len(containers) == 0 {
		return nil
	}
	return containers[0].(map[string]any)
}

// named returns the element of a list of objects with that name.
func named(list any, name string) map[string]any {
	items, _ := list.([]any)
	for _, i := range items {
		if m, ok := i.(map[string]any); ok && m["name"] == name {
			return m
		}
	}
	return nil
}

// valuesFile writes values to a file for helm's --values.
func valuesFile(t *testing.T, values string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "values.yaml")
	if err := os.WriteFile(f, []byte(values), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// jsonEqual compares a rendered value with the JSON of the expected one.
func jsonEqual(t *testing.T, what string, got any, want string) {
	t.Helper()
	var w any
	if err := yaml.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, w) {
		t.Errorf("%s: got %v, want %v", what, got, w)
	}
}

func TestChartPodValues(t *testing.T) {
	objs := helmTemplate(t, "--values", valuesFile(t, `
extraEnv: [{name: GODEBUG, value: "http2client=0"}, {name: NODE, valueFrom: {fieldRef: {fieldPath: spec.nodeName}}}]
extraVolumes: [{name: scratch, emptyDir: {medium: Memory}}]
extraVolumeMounts: [{name: scratch, mountPath: /scratch, readOnly: true}]
affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: role, operator: In, values: [infra]}]}]}}}
topologySpreadConstraints:
  - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: ScheduleAnyway}
  - {maxSkew: 2, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {team: a}}}
podSecurityContext: {runAsUser: 1000, sysctls: [{name: net.ipv4.ip_unprivileged_port_start, value: "443"}]}
securityContext: {readOnlyRootFilesystem: false}
serviceAccount: {annotations: {iam.gke.io/gcp-service-account: aim@p.iam.gserviceaccount.com}}
priorityClassName: system-cluster-critical
`))
	dep := find(t, objs, "Deployment", "aim-apiserver")
	c, spec := container(dep), podSpec(dep)
	// The chart's own variables stay first.
	if env, _ := c["env"].([]any); len(env) != 3 || named(env, "POD_NAMESPACE") == nil || env[0].(map[string]any)["name"] != "POD_NAMESPACE" {
		t.Errorf("env %v", c["env"])
	}
	// The controller's Lease is in the pod's namespace (manager's podNamespace reads it), where the Role for it is.
	jsonEqual(t, "POD_NAMESPACE", named(c["env"], "POD_NAMESPACE"), `{name: POD_NAMESPACE, valueFrom: {fieldRef: {fieldPath: metadata.namespace}}}`)
	jsonEqual(t, "GODEBUG", named(c["env"], "GODEBUG"), `{name: GODEBUG, value: "http2client=0"}`)
	jsonEqual(t, "NODE", named(c["env"], "NODE"), `{name: NODE, valueFrom: {fieldRef: {fieldPath: spec.nodeName}}}`)
	jsonEqual(t, "volume", named(spec["volumes"], "scratch"), `{name: scratch, emptyDir: {medium: Memory}}`)
	jsonEqual(t, "mount", named(c["volumeMounts"], "scratch"), `{name: scratch, mountPath: /scratch, readOnly: true}`)
	if named(spec["volumes"], "etcd-client") == nil || named(c["volumeMounts"], "etcd-client") == nil {
		t.Error("extra volumes replaced the chart's")
	}
	// affinity replaces the default anti-affinity.
	jsonEqual(t, "affinity", spec["affinity"],
		`{nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: role, operator: In, values: [infra]}]}]}}}`)
	jsonEqual(t, "topologySpreadConstraints", spec["topologySpreadConstraints"], `[
  {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: ScheduleAnyway,
   labelSelector: {matchLabels: {app.kubernetes.io/name: aim-apiserver}}},
  {maxSkew: 2, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {team: a}}}]`)
	// Helm merges a map into the default: runAsUser replaced, the rest kept.
	jsonEqual(t, "podSecurityContext", spec["securityContext"], `{runAsNonRoot: true, runAsUser: 1000, runAsGroup: 65532, fsGroup: 65532,
  seccompProfile: {type: RuntimeDefault}, sysctls: [{name: net.ipv4.ip_unprivileged_port_start, value: "443"}]}`)
	jsonEqual(t, "securityContext", c["securityContext"], `{allowPrivilegeEscalation: false, readOnlyRootFilesystem: false, capabilities: {drop: [ALL]}}`)
	if got := str(find(t, objs, "ServiceAccount", "aim-apiserver"), "metadata", "annotations", "iam.gke.io/gcp-service-account"); got != "aim@p.iam.gserviceaccount.com" {
		t.Errorf("ServiceAccount annotation %q", got)
	}
	// priorityClassName: aim-apiserver's pods, and etcd's while etcd.priorityClassName is empty.
	for _, o := range []object{dep, find(t, objs, "StatefulSet", "aim-etcd")} {
		if got := podSpec(o)["priorityClassName"]; got != "system-cluster-critical" {
			t.Errorf("%s: priorityClassName %v", key(o), got)
		}
	}

	// The defaults: no extra variable, volume or constraint, the soft anti-affinity, no annotation.
	objs = helmTemplate(t)
	dep = find(t, objs, "Deployment", "aim-apiserver")
	c, spec = container(dep), podSpec(dep)
	if len(c["env"].([]any)) != 1 || len(c["volumeMounts"].([]any)) != 1 || len(spec["volumes"].([]any)) != 1 {
		t.Errorf("defaults render env %v, mounts %v, volumes %v", c["env"], c["volumeMounts"], spec["volumes"])
	}
	if field(spec, "affinity", "podAntiAffinity", "preferredDuringSchedulingIgnoredDuringExecution") == nil {
		t.Errorf("default affinity %v", spec["affinity"])
	}
	for _, f := range []string{"topologySpreadConstraints", "priorityClassName", "hostNetwork", "dnsPolicy"} {
		if _, ok := spec[f]; ok {
			t.Errorf("defaults render %s", f)
		}
	}
	if _, ok := mapAt(find(t, objs, "ServiceAccount", "aim-apiserver"), "metadata")["annotations"]; ok {
		t.Error("defaults annotate the ServiceAccount")
	}
}

// OpenShift's restricted SCC assigns UIDs and groups: null removes them from the default security contexts (and
// null removes a whole context), while {} would keep the defaults (Helm merges maps).
func TestChartSecurityContextsForOpenShift(t *testing.T) {
	objs := helmTemplate(t, "--set", "podSecurityContext.runAsUser=null", "--set", "podSecurityContext.runAsGroup=null",
		"--set", "podSecurityContext.fsGroup=null", "--set", "etcd.podSecurityContext.runAsUser=null",
		"--set", "etcd.podSecurityContext.fsGroup=null")
	for _, o := range []object{find(t, objs, "Deployment", "aim-apiserver"), find(t, objs, "StatefulSet", "aim-etcd")} {
		jsonEqual(t, key(o), podSpec(o)["securityContext"], `{runAsNonRoot: true, seccompProfile: {type: RuntimeDefault}}`)
		jsonEqual(t, key(o)+" container", container(o)["securityContext"],
			`{allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: {drop: [ALL]}}`)
	}
	objs = helmTemplate(t, "--values", valuesFile(t, "podSecurityContext: null\nsecurityContext: null\netcd: {podSecurityContext: null, securityContext: null}\n"))
	for _, o := range []object{find(t, objs, "Deployment", "aim-apiserver"), find(t, objs, "StatefulSet", "aim-etcd")} {
		if _, ok := podSpec(o)["securityContext"]; ok {
			t.Errorf("%s: podSecurityContext null renders %v", key(o), podSpec(o)["securityContext"])
		}
		if _, ok := container(o)["securityContext"]; ok {
			t.Errorf("%s: securityContext null renders %v", key(o), container(o)["securityContext"])
		}
	}
}

// The bundled etcd's scheduling: its own values, else the top-level nodeSelector, tolerations and priorityClassName.
func TestChartEtcdScheduling(t *testing.T) {
	objs := helmTemplate(t, "--values", valuesFile(t, `
nodeSelector: {pool: system}
tolerations: [{key: dedicated, operator: Exists}]
priorityClassName: high
affinity: {podAffinity: {}}
topologySpreadConstraints: [{maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: ScheduleAnyway}]
`))
	sts := podSpec(find(t, objs, "StatefulSet", "aim-etcd"))
	jsonEqual(t, "fallback nodeSelector", sts["nodeSelector"], `{pool: system}`)
	jsonEqual(t, "fallback tolerations", sts["tolerations"], `[{key: dedicated, operator: Exists}]`)
	if sts["priorityClassName"] != "high" {
		t.Errorf("fallback priorityClassName %v", sts["priorityClassName"])
	}
	// aim-apiserver's affinity and constraints select its own pods: never etcd's, which keep their default
	// anti-affinity.
	jsonEqual(t, "etcd's default affinity", sts["affinity"], etcdDefaultAffinity)
	if _, ok := sts["topologySpreadConstraints"]; ok {
		t.Errorf("etcd pods take the top-level topologySpreadConstraints: %v", sts["topologySpreadConstraints"])
	}

	objs = helmTemplate(t, "--values", valuesFile(t, `
nodeSelector: {pool: system}
tolerations: [{key: dedicated, operator: Exists}]
priorityClassName: high
etcd:
  nodeSelector: {pool: etcd}
  tolerations: [{key: etcd, operator: Exists, effect: NoSchedule}]
  priorityClassName: etcd-critical
  affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app.kubernetes.io/name: aim-etcd}}}]}}
  topologySpreadConstraints: [{maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule}]
  podSecurityContext: {runAsUser: 1001}
  securityContext: {privileged: false}
`))
	etcd := find(t, objs, "StatefulSet", "aim-etcd")
	sts = podSpec(etcd)
	jsonEqual(t, "etcd.nodeSelector", sts["nodeSelector"], `{pool: etcd}`)
	jsonEqual(t, "etcd.tolerations", sts["tolerations"], `[{key: etcd, operator: Exists, effect: NoSchedule}]`)
	if sts["priorityClassName"] != "etcd-critical" {
		t.Errorf("etcd.priorityClassName %v", sts["priorityClassName"])
	}
	jsonEqual(t, "etcd.affinity", sts["affinity"],
		`{podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app.kubernetes.io/name: aim-etcd}}}]}}`)
	jsonEqual(t, "etcd.topologySpreadConstraints", sts["topologySpreadConstraints"],
		`[{maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app.kubernetes.io/name: aim-etcd}}}]`)
	jsonEqual(t, "etcd.podSecurityContext", sts["securityContext"], `{runAsNonRoot: true, runAsUser: 1001, fsGroup: 65532, seccompProfile: {type: RuntimeDefault}}`)
	jsonEqual(t, "etcd.securityContext", container(etcd)["securityContext"],
		`{allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: {drop: [ALL]}, privileged: false}`)
	// aim-apiserver keeps the top-level values.
	dep := podSpec(find(t, objs, "Deployment", "aim-apiserver"))
	jsonEqual(t, "nodeSelector", dep["nodeSelector"], `{pool: system}`)
	if dep["priorityClassName"] != "high" {
		t.Errorf("priorityClassName %v", dep["priorityClassName"])
	}
}

func TestChartImages(t *testing.T) {
	const digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	image := func(objs []object) (string, string) {
		return container(find(t, objs, "Deployment", "aim-apiserver"))["image"].(string),
			container(find(t, objs, "StatefulSet", "aim-etcd"))["image"].(string)
	}
	for _, c := range []struct {
		name            string
		args            []string
		apiserver, etcd string
	}{
		{"defaults", nil, "ghcr.io/aim-apiserver/aim-apiserver:v0.1.0", "registry.k8s.io/etcd:3.6.4-0"},
		{"digest", []string{"--set", "image.tag=v9", "--set", "image.digest=" + digest, "--set", "etcd.image.digest=" + digest},
			"ghcr.io/aim-apiserver/aim-apiserver@" + digest, "registry.k8s.io/etcd@" + digest},
		// global.imageRegistry replaces the registry host of both repositories.
		{"global registry", []string{"--set", "global.imageRegistry=mirror.example.com:5000/aim"},
			"mirror.example.com:5000/aim/aim-apiserver/aim-apiserver:v0.1.0", "mirror.example.com:5000/aim/etcd:3.6.4-0"},
		// The images' own registries take precedence over it; a repository without a registry gets it as a prefix.
		{"image registries", []string{"--set", "global.imageRegistry=mirror.example.com", "--set", "image.registry=localhost:5000",
			"--set", "image.repository=aim/aim-apiserver", "--set", "image.digest=" + digest, "--set", "etcd.image.registry=etcd.example.com"},
			"localhost:5000/aim/aim-apiserver@" + digest, "etcd.example.com/etcd:3.6.4-0"},
		// localhost is a registry; a repository without one and no registry value stays as it is.
		{"localhost repository", []string{"--set", "image.registry=mirror.example.com", "--set", "image.repository=localhost/aim-apiserver",
			"--set", "etcd.image.repository=etcd"}, "mirror.example.com/aim-apiserver:v0.1.0", "etcd:3.6.4-0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			apiserver, etcd := image(helmTemplate(t, c.args...))
			if apiserver != c.apiserver {
				t.Errorf("aim-apiserver image %s, want %s", apiserver, c.apiserver)
			}
			if etcd != c.etcd {
				t.Errorf("etcd image %s, want %s", etcd, c.etcd)
			}
		})
	}
}

// The port for control planes that reach nodes only on 443 or 10250, and hostNetwork for those that reach no
// pod IP: the container port and the probes follow flags.securePort, the Service and the APIService keep 443.
func TestChartPortAndHostNetwork(t *testing.T) {
	for _, port := range []string{"443", "10250"} {
		objs := helmTemplate(t, "--set", "flags.securePort="+port)
		dep := find(t, objs, "Deployment", "aim-apiserver")
		c := container(dep)
		if p := named(c["ports"], "https"); fmt.Sprint(p["containerPort"]) != port || p["hostPort"] != nil {
			t.Errorf("port %s: container port %v", port, p)
		}
		if !slices.Contains(containerArgs(dep, "args"), "--secure-port="+port) {
			t.Errorf("port %s: args %v", port, containerArgs(dep, "args"))
		}
		for _, probe := range []string{"livenessProbe", "readinessProbe", "startupProbe"} {
			if field(c, probe, "httpGet", "port") != "https" {
				t.Errorf("%s does not use the port https: %v", probe, c[probe])
			}
		}
		svc := named(field(find(t, objs, "Service", "aim-apiserver"), "spec", "ports"), "https")
		if svc["port"] != float64(443) || svc["targetPort"] != "https" {
			t.Errorf("Service port %v", svc)
		}
		if got := field(find(t, objs, "APIService", "v1alpha1.aim.eai.amd.com"), "spec", "service", "port"); got != float64(443) {
			t.Errorf("APIService port %v", got)
		}
		if _, ok := podSpec(dep)["hostNetwork"]; ok {
			t.Error("hostNetwork rendered by default")
		}
	}
	dep := find(t, helmTemplate(t, "--set", "hostNetwork=true", "--set", "flags.securePort=9443"), "Deployment", "aim-apiserver")
	if spec := podSpec(dep); spec["hostNetwork"] != true || spec["dnsPolicy"] != "ClusterFirstWithHostNet" {
		t.Errorf("hostNetwork %v, dnsPolicy %v", spec["hostNetwork"], spec["dnsPolicy"])
	}
	jsonEqual(t, "port", named(container(dep)["ports"], "https"), `{name: https, containerPort: 9443, hostPort: 9443}`)
}

// Every object carries app.kubernetes.io/name, in every mode: aim-etcd on the bundled etcd's objects.
func TestChartNameLabel(t *testing.T) {
	etcdObjects := map[string]bool{"StatefulSet aim-etcd": true, "Service aim-etcd": true, "Service aim-etcd-client": true, "NetworkPolicy aim-etcd": true,
		"PodDisruptionBudget aim-etcd": true, "ServiceMonitor aim-etcd": true, "CronJob aim-etcd-snapshot": true, "CronJob aim-etcd-defrag": true,
		"PersistentVolumeClaim aim-etcd-snapshots": true}
	for name, args := range map[string][]string{
		"defaults": {"--set", "createNamespace=true", "--set", "monitoring.serviceMonitor.enabled=true", "--set", "monitoring.prometheusRule.enabled=true",
			"--set", "monitoring.serviceMonitor.prometheusServiceAccount.name=p", "--set", "monitoring.serviceMonitor.prometheusServiceAccount.namespace=m",
			"--set", "defaultRuntimeConfig.enabled=true", "--api-versions", "aim.eai.amd.com/v1alpha1/AIMClusterRuntimeConfig"},
		"cert-manager": {"--set", "servingCert.mode=certManager", "--set", "etcd.certs.mode=certManager"},
	} {
		t.Run(name, func(t *testing.T) {
			objs := helmTemplate(t, args...)
			for _, o := range objs {
				want := "aim-apiserver"
				if etcdObjects[fmt.Sprintf("%s %s", o["kind"], str(o, "metadata", "name"))] {
					want = "aim-etcd"
				}
				if got := str(o, "metadata", "labels", nameLabel); got != want {
					t.Errorf("%s: %s=%q, want %q", key(o), nameLabel, got, want)
				}
			}
			if len(objs) < 20 {
				t.Errorf("only %d objects", len(objs))
			}
		})
	}
}

// The FlowSchema puts aim-apiserver's ServiceAccount, in the release's namespace, at the priority level the
// values name; disabled, there is none.
func TestChartFlowControl(t *testing.T) {
	find := func(objs []object) object {
		for _, o := range objs {
			if o["kind"] == "FlowSchema" {
				return o
			}
		}
		return nil
	}
	fs := find(helmTemplate(t, "--namespace", "inference", "--set", "flowControl.priorityLevel=aim", "--set", "flowControl.matchingPrecedence=700"))
	if fs == nil {
		t.Fatal("no FlowSchema rendered")
	}
	jsonEqual(t, "FlowSchema spec", fs["spec"], `{matchingPrecedence: 700, priorityLevelConfiguration: {name: aim}, distinguisherMethod: {type: ByUser},
rules: [{subjects: [{kind: ServiceAccount, serviceAccount: {name: aim-apiserver, namespace: inference}}],
  resourceRules: [{verbs: ["*"], apiGroups: ["*"], resources: ["*"], clusterScope: true, namespaces: ["*"]}],
  nonResourceRules: [{verbs: ["*"], nonResourceURLs: ["*"]}]}]}`)
	if fs := find(helmTemplate(t, "--set", "flowControl.enabled=false")); fs != nil {
		t.Errorf("flowControl.enabled=false renders %s", key(fs))
	}
}

func TestChartKubeVersion(t *testing.T) {
	if msg := helmTemplateError(t, "--kube-version", "v1.29.9"); !strings.Contains(msg, ">=1.30.0-0") {
		t.Errorf("1.29 accepted or another error: %s", msg)
	}
	// Providers' versions are pre-releases in semver terms (v1.30.2-gke.1, v1.30.0-eks-...): the -0 admits them.
	for _, v := range []string{"v1.30.0", "v1.30.2-gke.1156000", "v1.34.1"} {
		helmTemplate(t, "--kube-version", v)
	}
}

// Values of the wrong type or shape are refused by values.schema.json before anything renders.
func TestChartSchemaRejects(t *testing.T) {
	for _, c := range []struct {
		args []string
		path string
	}{
		{[]string{"--set", "extraEnv=x"}, "/extraEnv"},
		{[]string{"--set-json", `extraEnv=[{"value":"no name"}]`}, "/extraEnv/0"},
		{[]string{"--set-json", `extraVolumes={"name":"v"}`}, "/extraVolumes"},
		{[]string{"--set-json", `extraVolumeMounts=[{"name":"v"}]`}, "/extraVolumeMounts/0"},
		{[]string{"--set", "hostNetwork=yes"}, "/hostNetwork"},
		{[]string{"--set", "flowControl.matchingPrecedence=low"}, "/flowControl/matchingPrecedence"},
		{[]string{"--set", "flowControl.priorityLevel="}, "/flowControl/priorityLevel"},
		{[]string{"--set", "flowControl.enable=true"}, "/flowControl"},
		{[]string{"--set-json", "extraCACertificates.configMap=1"}, "/extraCACertificates/configMap"},
		{[]string{"--set-json", `extraCACertificates={"configmap":"x"}`}, "/extraCACertificates"},
		{[]string{"--set-json", "proxy.httpsProxy=true"}, "/proxy/httpsProxy"},
		{[]string{"--set-json", `proxy.noProxy=["a"]`}, "/proxy/noProxy"},
		{[]string{"--set-json", "affinity=[]"}, "/affinity"},
		{[]string{"--set-json", `affinity={"nodeAfinity":{}}`}, "/affinity"},
		{[]string{"--set-json", `topologySpreadConstraints=[{"maxSkew":1}]`}, "/topologySpreadConstraints/0"},
		{[]string{"--set", "podSecurityContext.runAsUser=root"}, "/podSecurityContext/runAsUser"},
		{[]string{"--set", "podSecurityContext=x"}, "/podSecurityContext"},
		{[]string{"--set", "securityContext.readOnlyRootFilesystem=sometimes"}, "/securityContext/readOnlyRootFilesystem"},
		{[]string{"--set", "serviceAccount.name=other"}, "/serviceAccount"},
		{[]string{"--set", "serviceAccount.annotations.a=1"}, "/serviceAccount/annotations/a"},
		{[]string{"--set", "image.digest=latest"}, "/image/digest"},
		{[]string{"--set", "image.registry=https://mirror.example.com"}, "/image/registry"},
		{[]string{"--set", "global.imageRegistry=mirror.example.com/"}, "/global/imageRegistry"},
		{[]string{"--set-json", "etcd.tolerations={}"}, "/etcd/tolerations"},
		{[]string{"--set", "etcd.nodeSelector=x"}, "/etcd/nodeSelector"},
		{[]string{"--set", "etcd.priorityClassName=1"}, "/etcd/priorityClassName"},
		{[]string{"--set-json", "etcd.affinity=true"}, "/etcd/affinity"},
		{[]string{"--set-json", "etcd.topologySpreadConstraints={}"}, "/etcd/topologySpreadConstraints"},
		{[]string{"--set", "etcd.podSecurityContext.fsGroup=x"}, "/etcd/podSecurityContext/fsGroup"},
		{[]string{"--set", "etcd.securityContext=x"}, "/etcd/securityContext"},
		{[]string{"--set", "etcd.image.digest=sha256"}, "/etcd/image/digest"},
		{[]string{"--set", "etcd.quotaBackendBytes=8Gi"}, "/etcd/quotaBackendBytes"},
		{[]string{"--set", "etcd.backup.keep=-1"}, "/etcd/backup/keep"},
		{[]string{"--set", "etcd.backup.enabled=sometimes"}, "/etcd/backup/enabled"},
		{[]string{"--set", "etcd.backup.storage.size=big"}, "/etcd/backup/storage/size"},
		{[]string{"--set", "etcd.backup.schedule="}, "/etcd/backup/schedule"},
		{[]string{"--set", "etcd.backup.s3.endpoint=minio:9000"}, "/etcd/backup/s3/endpoint"},
		{[]string{"--set", "etcd.backup.s3.pathStyle=yes"}, "/etcd/backup/s3/pathStyle"},
		{[]string{"--set", "etcd.backup.s3.credentialsSecret=My_Keys"}, "/etcd/backup/s3/credentialsSecret"},
		{[]string{"--set", "etcd.backup.s3.buckets=b"}, "/etcd/backup/s3"},
		{[]string{"--set", "etcd.backup.storage.persistent=no"}, "/etcd/backup/storage/persistent"},
		{[]string{"--set", "etcd.defrag.enabled=1"}, "/etcd/defrag/enabled"},
		{[]string{"--set", "etcd.quotaBackendBytes=-1"}, "/etcd/quotaBackendBytes"},
		{[]string{"--set-json", "etcd.quotaBackendBytes=1.5"}, "/etcd/quotaBackendBytes"},
		{[]string{"--set", "etcd.autoCompactionRetention=1"}, "/etcd/autoCompactionRetention"},
		{[]string{"--set", "etcd.autoCompactionRetention=1 hour"}, "/etcd/autoCompactionRetention"},
		{[]string{"--set", "etcd.podDisruptionBudget.maxUnavailable=true"}, "/etcd/podDisruptionBudget/maxUnavailable"},
		{[]string{"--set", "etcd.podDisruptionBudget.maxUnavailable=one"}, "/etcd/podDisruptionBudget/maxUnavailable"},
		{[]string{"--set", "etcd.podDisruptionBudget.maxUnavailable=-1"}, "/etcd/podDisruptionBudget/maxUnavailable"},
		{[]string{"--set", "etcd.podDisruptionBudget.minAvailable=2"}, "/etcd/podDisruptionBudget"},
		{[]string{"--set", "monitoring.prometheusRule.enabled=yes"}, "/monitoring/prometheusRule/enabled"},
		{[]string{"--set", "monitoring.prometheusRule.labels.release=1"}, "/monitoring/prometheusRule/labels/release"},
		{[]string{"--set-json", "monitoring.prometheusRule.labels=[]"}, "/monitoring/prometheusRule/labels"},
		{[]string{"--set", "monitoring.prometheusRule.namespace=monitoring"}, "/monitoring/prometheusRule"},
		{[]string{"--set", "registryMirrors=x"}, "/registryMirrors"},
		{[]string{"--set-json", `registryMirrors.registries.docker\.io.mirrors=[{"endpoint":"ftp://m"}]`}, "/registryMirrors/registries/docker.io/mirrors/0/endpoint"},
		{[]string{"--set-json", `registryMirrors.registries.docker\.io.mirrors=[{"endpoint":"https://m","capabilities":["push"]}]`}, "/registryMirrors/registries/docker.io/mirrors/0/capabilities/0"},
		{[]string{"--set", "registryMirrors.registries.docker\\.io.fallback=no"}, "/registryMirrors/registries/docker.io/fallback"},
	} {
		msg := helmTemplateError(t, c.args...)
		if !strings.Contains(msg, "values don't meet the specifications of the schema") || !strings.Contains(msg, "'"+c.path) {
			t.Errorf("%v: not a schema error at %s:\n%s", c.args, c.path, msg)
		}
	}
}

// readChartFile decodes a YAML (or JSON) file of the chart.
func readChartFile(t *testing.T, name string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(chartDir, name))
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := yaml.Unmarshal(data, &out); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return out
}

// Every property of values.schema.json has a description.
func TestChartSchemaDescriptions(t *testing.T) {
	schema := readChartFile(t, "values.schema.json")
	var missing []string
	n := 0
	var walk func(path string, s map[string]any)
	walk = func(path string, s map[string]any) {
		for _, k := range []string{"properties", "definitions"} {
			props, _ := s[k].(map[string]any)
			for name, p := range props {
				p := p.(map[string]any)
				n++
				if d, _ := p["description"].(string); strings.TrimSpace(d) == "" {
					missing = append(missing, path+"/"+name)
				}
				walk(path+"/"+name, p)
			}
		}
		if items, ok := s["items"].(map[string]any); ok {
			walk(path+"/items", items)
		}
	}
	walk("", schema)
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("%d of %d properties without a description:\n  %s", len(missing), n, strings.Join(missing, "\n  "))
	}
}

// The README's table of values names every value of values.yaml (or a map that holds it) with its default, and
// no value that does not exist.
func TestChartReadmeValues(t *testing.T) {
	values := readChartFile(t, "values.yaml")
	leaves := map[string]any{}
	nodes := map[string]bool{}
	var walk func(prefix string, m map[string]any)
	walk = func(prefix string, m map[string]any) {
		for k, v := range m {
			p := prefix + k
			nodes[p] = true
			if sub, ok := v.(map[string]any); ok && len(sub) > 0 {
				walk(p+".", sub)
			} else {
				leaves[p] = v
			}
		}
	}
	walk("", values)

	readme, err := os.ReadFile(filepath.Join(chartDir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	// The rows of the section "## Values": | `name` | default | meaning |.
	_, section, _ := strings.Cut(string(readme), "\n## Values\n")
	section, _, _ = strings.Cut(section, "\n## ")
	row := regexp.MustCompile("^\\| `([^`]+)` \\| ([^|]*) \\|")
	rows := map[string]string{}
	for _, line := range strings.Split(section, "\n") {
		if m := row.FindStringSubmatch(line); m != nil {
			if _, dup := rows[m[1]]; dup {
				t.Errorf("README: %s listed twice", m[1])
			}
			rows[m[1]] = strings.TrimSpace(m[2])
		}
	}
	if len(rows) == 0 {
		t.Fatal("README.md has no table of values under ## Values")
	}
	for name, def := range rows {
		if !nodes[name] {
			t.Errorf("README lists %s, which values.yaml does not have", name)
			continue
		}
		v, leaf := leaves[name]
		if !leaf {
			continue
		}
		want, _ := json.Marshal(v)
		if s, ok := v.(string); ok && s != "" {
			want = []byte(s)
		}
		if def != "`"+string(want)+"`" {
			t.Errorf("README: default of %s is %s, values.yaml has `%s`", name, def, want)
		}
	}
	for name := range leaves {
		covered := false
		for p := name; p != ""; p = p[:max(strings.LastIndex(p, "."), 0)] {
			if _, ok := rows[p]; ok {
				covered = true
				break
			}
		}
		if !covered {
			t.Errorf("README does not list %s", name)
		}
	}
}

// allNewValues sets every value the chart gained for platform teams at once (TestChartLint).
const allNewValues = `
global: {imageRegistry: mirror.example.com}
image: {registry: registry.example.com:5000, digest: "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}
serviceAccount: {annotations: {eks.amazonaws.com/role-arn: "arn:aws:iam::111122223333:role/aim"}}
extraEnv: [{name: GODEBUG, value: "http2client=0"}]
extraVolumes: [{name: scratch, emptyDir: {}}]
extraVolumeMounts: [{name: scratch, mountPath: /scratch}]
hostNetwork: true
flags: {securePort: 10443}
priorityClassName: system-cluster-critical
affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: role, operator: In, values: [infra]}]}]}}}
topologySpreadConstraints: [{maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: ScheduleAnyway}]
podSecurityContext: {runAsUser: null, runAsGroup: null, fsGroup: null}
securityContext: {readOnlyRootFilesystem: true}
etcd:
  image: {registry: etcd.example.com, digest: "sha256:fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"}
  nodeSelector: {pool: etcd}
  tolerations: [{key: etcd, operator: Exists, effect: NoSchedule}]
  priorityClassName: system-cluster-critical
  affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app.kubernetes.io/name: aim-etcd}}}]}}
  topologySpreadConstraints: [{maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule}]
  podSecurityContext: {runAsUser: null, fsGroup: null}
  securityContext: {privileged: false}
  quotaBackendBytes: 4294967296
  autoCompactionRetention: 30m
  podDisruptionBudget: {maxUnavailable: "34%"}
monitoring:
  serviceMonitor: {enabled: true, labels: {release: prom}}
  prometheusRule: {enabled: true, labels: {release: prom}}
`

// ---- lint ----------------------------------------------------------------------------------------------------

func TestChartLint(t *testing.T) {
	newValues := valuesFile(t, allNewValues)
	for name, args := range map[string][]string{
		"defaults":     nil,
		"generate":     {"--set", "servingCert.mode=generate", "--set", "etcd.certs.mode=generate"},
		"cert-manager": {"--set", "servingCert.mode=certManager", "--set", "etcd.certs.mode=certManager"},
		"existing secrets": {"--set", "servingCert.mode=existing", "--set", "servingCert.existingSecret=s", "--set", "servingCert.caBundle=" + caPEM,
			"--set", "etcd.certs.mode=existing", "--set", "etcd.certs.existingSecrets.server=a", "--set", "etcd.certs.existingSecrets.peer=b",
			"--set", "etcd.certs.existingSecrets.client=c"},
		"external etcd": {"--set", "etcd.mode=external", "--set", "etcd.external.endpoints={https://etcd.example:2379}",
			"--set", "etcd.external.clientSecret=c"},
		"migration": {"--set", "apiService.create=false", "--set", "servingCert.mode=existing", "--set", "servingCert.existingSecret=s"},
		"everything": {"--set", "createNamespace=true", "--set", "monitoring.serviceMonitor.enabled=true", "--set", "defaultRuntimeConfig.enabled=true",
			"--set", "monitoring.prometheusRule.enabled=true", "--set", "monitoring.prometheusRule.labels.release=prom",
			"--set-json", `registryMirrors={"registries":{"docker.io":{"mirrors":[{"endpoint":"https://harbor.example.com/dockerhub-proxy"}]}}}`},
		"monitoring, external etcd": {"--set", "etcd.mode=external", "--set", "etcd.external.endpoints={https://etcd.example:2379}",
			"--set", "etcd.external.clientSecret=c", "--set", "monitoring.serviceMonitor.enabled=true", "--set", "monitoring.prometheusRule.enabled=true"},
		"new values": {"--values", newValues},
	} {
		t.Run(name, func(t *testing.T) {
			out, err := command(t, helmBin, append([]string{"lint", "--strict", chartDir, "--namespace", namespace}, args...)...)
			if err != nil || !strings.Contains(out, "0 chart(s) failed") {
				t.Fatalf("%v\n%s", err, out)
			}
			for _, line := range strings.Split(out, "\n") {
				if strings.HasPrefix(line, "[WARNING]") || strings.HasPrefix(line, "[ERROR]") {
					t.Errorf("lint: %s", line)
				}
			}
		})
	}
}

// TestChartTrustAndProxy: extraCACertificates mounts the ConfigMap and Secret into one directory that
// SSL_CERT_DIR names (hack/image's test runs the image's binary with that mount), and proxy sets the proxy
// variables with NO_PROXY starting with what must never go through a proxy; neither renders anything by default.
func TestChartTrustAndProxy(t *testing.T) {
	objs := helmTemplate(t, "--values", valuesFile(t, `
extraCACertificates: {configMap: corp-cas, secret: registry-ca}
proxy: {httpsProxy: "http://proxy.corp:3128", httpProxy: "http://proxy.corp:3128", noProxy: "10.0.0.0/8,.corp"}
`))
	dep := find(t, objs, "Deployment", "aim-apiserver")
	c, spec := container(dep), podSpec(dep)
	jsonEqual(t, "SSL_CERT_DIR", named(c["env"], "SSL_CERT_DIR"), `{name: SSL_CERT_DIR, value: /etc/aim-apiserver/ca-certificates}`)
	jsonEqual(t, "mount", named(c["volumeMounts"], "extra-ca-certificates"),
		`{name: extra-ca-certificates, mountPath: /etc/aim-apiserver/ca-certificates, readOnly: true}`)
	jsonEqual(t, "volume", named(spec["volumes"], "extra-ca-certificates"),
		`{name: extra-ca-certificates, projected: {defaultMode: 292, sources: [{configMap: {name: corp-cas}}, {secret: {name: registry-ca}}]}}`)
	jsonEqual(t, "HTTPS_PROXY", named(c["env"], "HTTPS_PROXY"), `{name: HTTPS_PROXY, value: "http://proxy.corp:3128"}`)
	jsonEqual(t, "HTTP_PROXY", named(c["env"], "HTTP_PROXY"), `{name: HTTP_PROXY, value: "http://proxy.corp:3128"}`)
	jsonEqual(t, "NO_PROXY", named(c["env"], "NO_PROXY"),
		`{name: NO_PROXY, value: "localhost,127.0.0.1,.svc,.cluster.local,$(KUBERNETES_SERVICE_HOST),10.0.0.0/8,.corp"}`)

	// Only a Secret: the projected volume has one source.
	objs = helmTemplate(t, "--set", "extraCACertificates.secret=registry-ca")
	jsonEqual(t, "secret only", named(podSpec(find(t, objs, "Deployment", "aim-apiserver"))["volumes"], "extra-ca-certificates"),
		`{name: extra-ca-certificates, projected: {defaultMode: 292, sources: [{secret: {name: registry-ca}}]}}`)

	c = container(find(t, helmTemplate(t), "Deployment", "aim-apiserver"))
	for _, name := range []string{"SSL_CERT_DIR", "HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY"} {
		if named(c["env"], name) != nil {
			t.Errorf("%s rendered with the default values", name)
		}
	}
}

// TestChartSelfManagedServingCert: by default aim-apiserver manages its serving certificate, so the chart renders
// no serving Secret and no caBundle (a GitOps diff never sees them), passes the Secret and the names
// kube-apiserver verifies, and grants exactly what the server needs; other modes render none of that.
func TestChartSelfManagedServingCert(t *testing.T) {
	objs := helmTemplate(t, "--set", "clusterDomain=corp.internal")
	if has(objs, "Secret", "aim-apiserver-serving-cert") {
		t.Error("the chart renders the serving Secret in mode self")
	}
	if ca := field(find(t, objs, "APIService", "v1alpha1.aim.eai.amd.com"), "spec", "caBundle"); ca != nil {
		t.Errorf("the chart renders a caBundle in mode self: %v", ca)
	}
	args := containerArgs(find(t, objs, "Deployment", "aim-apiserver"), "args")
	for _, want := range []string{"--serving-cert-secret=aim-system/aim-apiserver-serving-cert",
		"--serving-cert-hosts=aim-apiserver.aim-system.svc,aim-apiserver.aim-system.svc.corp.internal"} {
		if !slices.Contains(args, want) {
			t.Errorf("args lack %s: %v", want, args)
		}
	}
	for _, a := range args {
		if strings.HasPrefix(a, "--tls-") {
			t.Errorf("mode self passes %s", a)
		}
	}
	jsonEqual(t, "Role", find(t, objs, "Role", "aim-apiserver-serving-cert")["rules"], `[
  {apiGroups: [""], resources: [secrets], verbs: [create]},
  {apiGroups: [""], resources: [secrets], resourceNames: [aim-apiserver-serving-cert], verbs: [get, list, watch, update]}]`)
	jsonEqual(t, "ClusterRole", find(t, objs, "ClusterRole", "aim-apiserver-serving-cert")["rules"], `[
  {apiGroups: [apiregistration.k8s.io], resources: [apiservices], resourceNames: [v1alpha1.aim.eai.amd.com], verbs: [get, list, watch, patch]}]`)
	for _, kind := range []string{"RoleBinding", "ClusterRoleBinding"} {
		b := find(t, objs, kind, "aim-apiserver-serving-cert")
		jsonEqual(t, kind, b["subjects"], `[{kind: ServiceAccount, name: aim-apiserver, namespace: aim-system}]`)
	}

	for _, mode := range []string{"generate", "certManager"} {
		objs := helmTemplate(t, "--set", "servingCert.mode="+mode)
		if has(objs, "Role", "aim-apiserver-serving-cert") || has(objs, "ClusterRole", "aim-apiserver-serving-cert") {
			t.Errorf("mode %s grants the self-managed certificate's rights", mode)
		}
		if args := containerArgs(find(t, objs, "Deployment", "aim-apiserver"), "args"); !slices.Contains(args,
			"--tls-cert-file=/var/run/aim-apiserver/serving-cert/tls.crt") {
			t.Errorf("mode %s: args %v", mode, args)
		}
	}
}

// TestChartSelfManagedEtcdCerts: in mode self (the default) the chart renders no etcd certificate; the init
// container of aim-apiserver's pods makes them for the names the members and the client Service have (following
// the namespace and cluster domain), writes the client certificate into a memory volume the server reads, and
// its service account may touch exactly the four Secrets. The StatefulSet mounts the Secrets it creates.
func TestChartSelfManagedEtcdCerts(t *testing.T) {
	objs := helmTemplate(t, "--namespace", "ai", "--set", "clusterDomain=corp.internal", "--set", "etcd.certs.validityDays=30")
	for _, o := range objs {
		if o["kind"] == "Secret" {
			t.Errorf("mode self renders %s", key(o))
		}
	}
	dep := find(t, objs, "Deployment", "aim-apiserver")
	inits, _ := field(dep, "spec", "template", "spec", "initContainers").([]any)
	if len(inits) != 1 {
		t.Fatalf("init containers: %v", inits)
	}
	init := inits[0].(map[string]any)
	jsonEqual(t, "init container args", init["args"], `[etcd, certs,
  "--server-hosts=aim-etcd-client,aim-etcd-client.ai,aim-etcd-client.ai.svc,aim-etcd-client.ai.svc.corp.internal,*.aim-etcd.ai.svc,*.aim-etcd.ai.svc.corp.internal,localhost,127.0.0.1",
  "--peer-hosts=*.aim-etcd.ai.svc,*.aim-etcd.ai.svc.corp.internal",
  --validity=720h, --client-dir=/var/run/aim-apiserver/etcd-client]`)
	if init["image"] != container(dep)["image"] {
		t.Errorf("init container image %v, server %v", init["image"], container(dep)["image"])
	}
	jsonEqual(t, "init container mounts", init["volumeMounts"], `[{name: etcd-client, mountPath: /var/run/aim-apiserver/etcd-client}]`)
	jsonEqual(t, "etcd-client volume", named(field(dep, "spec", "template", "spec", "volumes"), "etcd-client"),
		`{name: etcd-client, emptyDir: {medium: Memory, sizeLimit: 1Mi}}`)
	if args := containerArgs(dep, "args"); !slices.Contains(args, "--etcd-certfile=/var/run/aim-apiserver/etcd-client/tls.crt") {
		t.Errorf("the server does not read the client certificate the init container writes: %v", args)
	}
	want := map[string]string{"server-tls": "aim-etcd-server-tls", "peer-tls": "aim-etcd-peer-tls"}
	if got := volumeSecrets(find(t, objs, "StatefulSet", "aim-etcd")); !reflect.DeepEqual(got, want) {
		t.Errorf("StatefulSet mounts %v, want %v", got, want)
	}
	jsonEqual(t, "Role", find(t, objs, "Role", "aim-apiserver-etcd-certs")["rules"], `[
  {apiGroups: [""], resources: [secrets], verbs: [create]},
  {apiGroups: [""], resources: [secrets], resourceNames: [aim-etcd-ca, aim-etcd-server-tls, aim-etcd-peer-tls, aim-apiserver-etcd-client], verbs: [get, update]}]`)
	jsonEqual(t, "RoleBinding", find(t, objs, "RoleBinding", "aim-apiserver-etcd-certs")["subjects"],
		`[{kind: ServiceAccount, name: aim-apiserver, namespace: ai}]`)

	for name, args := range map[string][]string{
		"generate":      {"--set", "etcd.certs.mode=generate"},
		"certManager":   {"--set", "etcd.certs.mode=certManager"},
		"external etcd": {"--set", "etcd.mode=external", "--set", "etcd.external.endpoints={https://e:2379}", "--set", "etcd.external.clientSecret=c"},
	} {
		objs := helmTemplate(t, args...)
		if has(objs, "Role", "aim-apiserver-etcd-certs") {
			t.Errorf("%s grants the etcd-certs init container's rights", name)
		}
		dep := find(t, objs, "Deployment", "aim-apiserver")
		if inits := field(dep, "spec", "template", "spec", "initContainers"); inits != nil {
			t.Errorf("%s has init containers %v", name, inits)
		}
		if volumeSecrets(dep)["etcd-client"] == "" {
			t.Errorf("%s: the client certificate is not mounted from a Secret", name)
		}
	}
}

// TestChartEtcdMaintenance: the snapshot and defrag CronJobs run aim-apiserver's image against the bundled etcd
// with the client certificate of the mode in use, as pods the NetworkPolicy admits; snapshots go to the chart's
// volume (kept on uninstall) or an existing claim; each can be turned off, and none exists with an external etcd.
func TestChartEtcdMaintenance(t *testing.T) {
	objs := helmTemplate(t, "--set", "etcd.backup.keep=3", "--set", "etcd.backup.schedule=0 1 * * *",
		"--set", "etcd.backup.storage.size=50Gi", "--set", "etcd.backup.storage.storageClassName=replicated")
	etcdArgs := []string{"--etcd-servers=https://aim-etcd-client.aim-system.svc:2379", "--etcd-cafile=/var/run/aim-apiserver/etcd-client/ca.crt",
		"--etcd-certfile=/var/run/aim-apiserver/etcd-client/tls.crt", "--etcd-keyfile=/var/run/aim-apiserver/etcd-client/tls.key"}
	pod := func(o object) object { return mapAt(o, "spec", "jobTemplate", "spec", "template") }
	firstContainer := func(o object) map[string]any {
		return field(pod(o), "spec", "containers").([]any)[0].(map[string]any)
	}
	snap := find(t, objs, "CronJob", "aim-etcd-snapshot")
	if got := str(snap, "spec", "schedule"); got != "0 1 * * *" || str(snap, "spec", "concurrencyPolicy") != "Forbid" {
		t.Errorf("snapshot CronJob schedule %q, policy %q", got, str(snap, "spec", "concurrencyPolicy"))
	}
	jsonEqual(t, "snapshot args", firstContainer(snap)["args"], toJSON(t, append(append([]string{"etcd", "snapshot"}, etcdArgs...),
		"--dir=/var/lib/aim-etcd-snapshots", "--keep=3")))
	if got := str(pod(snap), "metadata", "labels", nameLabel); got != "aim-etcd-maintenance" {
		t.Errorf("snapshot pods labelled %q, which the NetworkPolicy does not admit", got)
	}
	if got := field(pod(snap), "spec", "automountServiceAccountToken"); got != false {
		t.Errorf("snapshot pods mount a service account token: %v", got)
	}
	jsonEqual(t, "snapshot volumes", field(pod(snap), "spec", "volumes"), `[
  {name: etcd-client, secret: {secretName: aim-apiserver-etcd-client, defaultMode: 288}},
  {name: snapshots, persistentVolumeClaim: {claimName: aim-etcd-snapshots}}]`)
	pvc := find(t, objs, "PersistentVolumeClaim", "aim-etcd-snapshots")
	if str(pvc, "metadata", "annotations", "helm.sh/resource-policy") != "keep" || str(pvc, "spec", "resources", "requests", "storage") != "50Gi" ||
		str(pvc, "spec", "storageClassName") != "replicated" {
		t.Errorf("snapshot volume: %v", pvc)
	}
	defrag := find(t, objs, "CronJob", "aim-etcd-defrag")
	jsonEqual(t, "defrag args", firstContainer(defrag)["args"], toJSON(t, append([]string{"etcd", "defrag"}, etcdArgs...)))
	if firstContainer(defrag)["image"] != container(find(t, objs, "Deployment", "aim-apiserver"))["image"] {
		t.Error("the defrag CronJob does not run aim-apiserver's image")
	}

	objs = helmTemplate(t, "--set", "etcd.backup.storage.existingClaim=offsite", "--set", "etcd.defrag.enabled=false",
		"--set", "etcd.certs.mode=existing", "--set", "etcd.certs.existingSecrets.server=s", "--set", "etcd.certs.existingSecrets.peer=p",
		"--set", "etcd.certs.existingSecrets.client=my-client")
	if has(objs, "PersistentVolumeClaim", "aim-etcd-snapshots") || has(objs, "CronJob", "aim-etcd-defrag") {
		t.Error("an existing claim or defrag.enabled=false still renders the chart's volume or the defrag CronJob")
	}
	jsonEqual(t, "snapshot volumes", field(pod(find(t, objs, "CronJob", "aim-etcd-snapshot")), "spec", "volumes"), `[
  {name: etcd-client, secret: {secretName: my-client, defaultMode: 288}},
  {name: snapshots, persistentVolumeClaim: {claimName: offsite}}]`)
	// A copy in a bucket only: credentials from a Secret, a cloud identity's service account, the private CAs and
	// the proxy as aim-apiserver has them, and a scratch volume instead of the chart's claim.
	objs = helmTemplate(t, "--set", "etcd.backup.s3.bucket=backups", "--set", "etcd.backup.s3.prefix=aim/prod",
		"--set", "etcd.backup.s3.endpoint=https://minio.storage.svc:9000", "--set", "etcd.backup.s3.region=eu-1",
		"--set", "etcd.backup.s3.pathStyle=true", "--set", "etcd.backup.s3.credentialsSecret=s3-keys",
		"--set", "etcd.backup.s3.serviceAccountName=backup", "--set", "etcd.backup.storage.persistent=false",
		"--set", "extraCACertificates.configMap=private-cas", "--set", "proxy.httpsProxy=http://proxy:3128")
	if has(objs, "PersistentVolumeClaim", "aim-etcd-snapshots") {
		t.Error("storage.persistent=false still renders the snapshots' claim")
	}
	snap = find(t, objs, "CronJob", "aim-etcd-snapshot")
	jsonEqual(t, "snapshot args with a bucket", firstContainer(snap)["args"], toJSON(t, append(append([]string{"etcd", "snapshot"}, etcdArgs...),
		"--dir=/var/lib/aim-etcd-snapshots", "--keep=8", "--s3-bucket=backups", "--s3-prefix=aim/prod",
		"--s3-endpoint=https://minio.storage.svc:9000", "--s3-region=eu-1", "--s3-path-style")))
	jsonEqual(t, "snapshot env with a bucket", firstContainer(snap)["env"], `[
  {name: AWS_ACCESS_KEY_ID, valueFrom: {secretKeyRef: {name: s3-keys, key: AWS_ACCESS_KEY_ID}}},
  {name: AWS_SECRET_ACCESS_KEY, valueFrom: {secretKeyRef: {name: s3-keys, key: AWS_SECRET_ACCESS_KEY}}},
  {name: SSL_CERT_DIR, value: /etc/aim-apiserver/ca-certificates},
  {name: HTTPS_PROXY, value: "http://proxy:3128"},
  {name: NO_PROXY, value: "localhost,127.0.0.1,.svc,.cluster.local,$(KUBERNETES_SERVICE_HOST)"}]`)
	jsonEqual(t, "snapshot volumes with a bucket", field(pod(snap), "spec", "volumes"), `[
  {name: etcd-client, secret: {secretName: aim-apiserver-etcd-client, defaultMode: 288}},
  {name: snapshots, emptyDir: {}},
  {name: extra-ca-certificates, projected: {defaultMode: 292, sources: [{configMap: {name: private-cas}}]}}]`)
	if got := str(pod(snap), "spec", "serviceAccountName"); got != "backup" {
		t.Errorf("snapshot pods run as %q, want the cloud identity's service account", got)
	}
	if _, ok := firstContainer(find(t, objs, "CronJob", "aim-etcd-defrag"))["env"]; ok {
		t.Error("the defrag pods get the bucket's credentials")
	}
	if msg := helmTemplateError(t, "--set", "etcd.backup.storage.persistent=false"); !strings.Contains(msg, "set etcd.backup.s3.bucket") {
		t.Errorf("no volume and no bucket: %q, want an error that says to set the bucket", msg)
	}

	objs = helmTemplate(t, "--set", "etcd.backup.enabled=false")
	if has(objs, "CronJob", "aim-etcd-snapshot") || has(objs, "PersistentVolumeClaim", "aim-etcd-snapshots") {
		t.Error("backup.enabled=false still renders the snapshots")
	}
	objs = helmTemplate(t, "--set", "etcd.mode=external", "--set", "etcd.external.endpoints={https://e:2379}", "--set", "etcd.external.clientSecret=c")
	for _, o := range objs {
		if o["kind"] == "CronJob" || o["kind"] == "PersistentVolumeClaim" {
			t.Errorf("an external etcd, yet the chart renders %s", key(o))
		}
	}
}

func toJSON(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestChartRendersTheSameTwice: with the default values the chart's output is a function of its values (no lookup,
// no generated material), so a renderer without cluster access (Argo CD's) settles.
func TestChartRendersTheSameTwice(t *testing.T) {
	args := []string{"template", release, chartDir, "--namespace", namespace}
	first, err := command(t, helmBin, args...)
	if err != nil {
		t.Fatal(err)
	}
	second, err := command(t, helmBin, args...)
	if err != nil {
		t.Fatal(err)
	}
	if first != second {
		t.Errorf("two renders differ:\n%s", diff.Diff(first, second))
	}
}

// TestChartCertManagerIssuer: with an existing Issuer or ClusterIssuer, the serving Certificate names it and the
// chart creates no CA of its own for it; etcd keeps its own CA.
func TestChartCertManagerIssuer(t *testing.T) {
	objs := helmTemplate(t, "--set", "servingCert.mode=certManager", "--set", "servingCert.certManager.issuerRef.name=corp-ca",
		"--set", "servingCert.certManager.issuerRef.kind=ClusterIssuer")
	jsonEqual(t, "issuerRef", field(find(t, objs, "Certificate", "aim-apiserver-serving"), "spec", "issuerRef"),
		`{name: corp-ca, kind: ClusterIssuer, group: cert-manager.io}`)
	for _, o := range []struct{ kind, name string }{{"Certificate", "aim-apiserver-ca"}, {"Issuer", "aim-apiserver-ca"}, {"Issuer", "aim-selfsigned"}} {
		if has(objs, o.kind, o.name) {
			t.Errorf("%s %s rendered although an existing issuer issues the serving certificate", o.kind, o.name)
		}
	}
	if got := str(find(t, objs, "APIService", "v1alpha1.aim.eai.amd.com"), "metadata", "annotations", "cert-manager.io/inject-ca-from"); got != "aim-system/aim-apiserver-serving" {
		t.Errorf("inject-ca-from %q", got)
	}

	objs = helmTemplate(t, "--set", "servingCert.mode=certManager", "--set", "servingCert.certManager.issuerRef.name=corp-ca",
		"--set", "etcd.certs.mode=certManager")
	jsonEqual(t, "namespaced issuer", field(find(t, objs, "Certificate", "aim-apiserver-serving"), "spec", "issuerRef"),
		`{name: corp-ca, kind: Issuer, group: cert-manager.io}`)
	jsonEqual(t, "etcd's own CA", field(find(t, objs, "Certificate", "aim-etcd-server"), "spec", "issuerRef"), `{name: aim-etcd-ca, kind: Issuer}`)
	if !has(objs, "Issuer", "aim-selfsigned") || has(objs, "Issuer", "aim-apiserver-ca") {
		t.Error("with etcd on cert-manager the self-signed issuer is needed, the serving CA is not")
	}
	if msg := helmTemplateError(t, "--set", "servingCert.certManager.issuerRef.kind=Vault"); !strings.Contains(msg, "issuerRef") {
		t.Errorf("a kind other than Issuer or ClusterIssuer: %s", msg)
	}
}
