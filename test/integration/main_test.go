// Package integration runs aim-apiserver in-process on an embedded etcd and drives it through the generated
// clientset, the dynamic client, raw HTTP and kubectl.
package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	aimv1 "github.com/aim-apiserver/aim-apiserver/pkg/apis/aim/v1alpha1"
	"github.com/aim-apiserver/aim-apiserver/pkg/generated/clientset/versioned"
	"github.com/aim-apiserver/aim-apiserver/test/framework"
)

// shared is one server for the tests that do not restart it; each test works in its own namespace.
var shared *framework.Server

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "aim-integration-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	shared, err = framework.Start(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting shared server:", err)
		os.Exit(1)
	}
	code := m.Run()
	shared.Stop()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return c
}

// namespace returns a namespace name unique to the test; local mode has no Namespace objects to create.
func namespace(t *testing.T) string {
	return strings.ToLower(strings.NewReplacer("/", "-", "_", "-").Replace(t.Name()))
}

func newService(ns, name string) *aimv1.AIMService {
	return &aimv1.AIMService{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       aimv1.AIMServiceSpec{Model: aimv1.AIMServiceModel{Name: ptr.To("qwen3-32b")}},
	}
}

// statusCode returns the HTTP code of an API error, failing the test when err is not one.
func statusCode(t *testing.T, err error) int32 {
	t.Helper()
	var status apierrors.APIStatus
	if err == nil {
		t.Fatal("expected an error, got none")
	}
	if !asAPIStatus(err, &status) {
		t.Fatalf("expected an API status error, got %T: %v", err, err)
	}
	return status.Status().Code
}

func asAPIStatus(err error, target *apierrors.APIStatus) bool {
	s, ok := err.(apierrors.APIStatus)
	if ok {
		*target = s
	}
	return ok
}

func corev1apply(name, value string) *corev1ac.EnvVarApplyConfiguration {
	return corev1ac.EnvVar().WithName(name).WithValue(value)
}

func newClientOrFail(t *testing.T, cfg *rest.Config) versioned.Interface {
	t.Helper()
	c, err := versioned.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// rawRequest sends a request through the shared server's raw client and returns its code, its Status (when the
// body is one) and its body.
func rawRequest(t *testing.T, method, url, contentType, body string) (int, metav1.Status, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	must(t, err)
	req.Header.Set("Content-Type", contentType)
	resp, err := shared.RawClient(t).Do(req)
	must(t, err)
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var status metav1.Status
	_ = json.Unmarshal(data, &status)
	return resp.StatusCode, status, string(data)
}
